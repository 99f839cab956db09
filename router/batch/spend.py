"""What a batch spent: each answered call's estimated cost, totalled per vendor and per model.

A call costs money once a provider answered it, whether or not the answer then passed REQUIRED
grounding, so a rejected answer's cost counts too, and so do the answers of every vendor a
request with fallbacks tried. A failed row's cost is its error's ``usage`` (the same figure its
row carries as ``error.usage``), so the rows of a run add up to its summary. Calls that failed
at the provider (errors, timeouts) and bad input lines cost nothing here. Answers whose model
has no price are counted as ``unpriced``; their spend is unknown, not zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from router.errors import RouterError
from router.types import Cost, LLMResponse, Usage

__all__ = ["CostSummary", "Spend", "SpendLedger", "spend_of", "spend_of_error"]

_DIGITS = 6


@dataclass(frozen=True, slots=True)
class Spend:
    """One answered call's cost as plain data that worker processes can send.

    ``total`` is None when the model has no price.
    """

    vendor: str
    model: str
    currency: str | None = None
    tokens: float = 0.0
    searches: float = 0.0
    total: float | None = None


def spend_of(response: LLMResponse) -> Spend:
    """The spend of an answered call, priced or not."""
    return _spend(response.vendor, response.model, response.usage.cost)


def spend_of_error(error: RouterError | None) -> Spend | None:
    """The spend of a failed call: what its error's ``usage`` says was paid (an answer that
    grounding rejected, and every fallback attempt's), under the vendor and model of the
    rejected answer, else of the error; None when nothing was answered."""
    if error is None or not isinstance(error.usage, Usage):
        return None
    kept = getattr(error, "response", None)
    if isinstance(kept, LLMResponse):
        return _spend(kept.vendor, kept.model, error.usage.cost)
    return _spend(error.vendor or "unknown", error.model or "unknown", error.usage.cost)


def _spend(vendor: str, model: str, cost: Cost | None) -> Spend:
    if cost is None:
        return Spend(vendor=vendor, model=model)
    return Spend(
        vendor=vendor,
        model=model,
        currency=cost.currency,
        tokens=cost.tokens,
        searches=cost.searches,
        total=cost.total,
    )


@dataclass
class _Totals:
    currency: str | None = None
    responses: int = 0
    unpriced: int = 0
    tokens: float = 0.0
    searches: float = 0.0
    total: float = 0.0

    def add(self, spend: Spend) -> None:
        if spend.total is None:
            self.unpriced += 1
            return
        self.currency = spend.currency
        self.responses += 1
        self.tokens += spend.tokens
        self.searches += spend.searches
        self.total += spend.total

    def to_dict(self, **key: str) -> dict[str, Any]:
        return {
            **key,
            "currency": self.currency,
            "responses": self.responses,
            "unpriced": self.unpriced,
            "tokens": round(self.tokens, _DIGITS),
            "searches": round(self.searches, _DIGITS),
            "total": round(self.total, _DIGITS),
        }


@dataclass
class SpendLedger:
    """Spend totalled per (vendor, model) as rows arrive."""

    by_model: dict[tuple[str, str], _Totals] = field(default_factory=dict)

    def add(self, spend: Spend) -> None:
        key = (spend.vendor, spend.model)
        totals = self.by_model.get(key)
        if totals is None:
            totals = self.by_model[key] = _Totals()
        totals.add(spend)

    def merge(self, other: SpendLedger) -> None:
        """Add the spend totalled in ``other`` (a part of the same run, totalled elsewhere)."""
        for key, totals in other.by_model.items():
            _merge(self.by_model.setdefault(key, _Totals()), totals)

    def summary(self) -> CostSummary:
        by_vendor: dict[str, _Totals] = {}
        by_currency: dict[str, _Totals] = {}
        for (vendor, _model), totals in sorted(self.by_model.items()):
            _merge(by_vendor.setdefault(vendor, _Totals()), totals)
            if totals.currency is not None:
                _merge(by_currency.setdefault(totals.currency, _Totals()), totals)
        return CostSummary(
            totals=[totals.to_dict() for _, totals in sorted(by_currency.items())],
            by_vendor=[totals.to_dict(vendor=vendor) for vendor, totals in by_vendor.items()],
            by_model=[
                totals.to_dict(vendor=vendor, model=model)
                for (vendor, model), totals in sorted(self.by_model.items())
            ],
            unpriced=sum(totals.unpriced for totals in self.by_model.values()),
        )


def _merge(into: _Totals, totals: _Totals) -> None:
    """Add ``totals`` in (an unpriced answer has no currency, so per-currency totals have none)."""
    into.currency = into.currency or totals.currency
    into.responses += totals.responses
    into.unpriced += totals.unpriced
    into.tokens += totals.tokens
    into.searches += totals.searches
    into.total += totals.total


@dataclass
class CostSummary:
    """The estimated spend of a run: totals per currency, per vendor and per model.

    Each entry has ``responses`` (priced answers), ``unpriced`` (answers whose model has no
    price), and ``tokens``, ``searches`` and ``total`` in its ``currency``.
    """

    totals: list[dict[str, Any]] = field(default_factory=list)
    by_vendor: list[dict[str, Any]] = field(default_factory=list)
    by_model: list[dict[str, Any]] = field(default_factory=list)
    unpriced: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "estimated": True,
            "totals": self.totals,
            "by_vendor": self.by_vendor,
            "by_model": self.by_model,
            "unpriced_responses": self.unpriced,
        }
