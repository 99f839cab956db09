"""Totals over a whole output file, every run that wrote it: what a resumed run's summary adds.

A run's own summary counts the rows it wrote; after ``--resume`` the file also holds the rows
of the runs before. This reads them all back: rows by outcome (as :func:`router.batch.stats.
outcome_of` classes them, from the error type a row records) and the estimated cost of the
answers the rows carry, per currency.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from router import errors
from router.text.jsonl import UnreadableLineError, loads, read_lines

__all__ = ["FileTotals", "file_totals", "row_outcome"]

# Error classes in the order outcome_of tests them; a subclass is classed as its base.
_OUTCOMES: tuple[tuple[type[errors.RouterError], str], ...] = (
    (errors.GroundingRequiredFailedError, "required_failed"),
    (errors.ProviderError, "provider_error"),
    (errors.RequestValidationError, "bad_input"),
    (errors.FanoutError, "fanout_failed"),
)


@dataclass
class FileTotals:
    """Rows of a whole output file by outcome, and the cost of its answers per currency."""

    rows: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    cost: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The totals as JSON data."""
        return {
            "rows": self.rows,
            "outcomes": dict(sorted(self.outcomes.items())),
            "cost": {currency: round(total, 6) for currency, total in sorted(self.cost.items())},
        }


def row_outcome(row: Mapping[str, Any]) -> str:
    """The outcome class of an output row: ok, or the class of the error it records."""
    if row.get("ok") is True:
        return "ok"
    error = row.get("error")
    name = error.get("type") if isinstance(error, Mapping) else None
    kind = getattr(errors, name, None) if isinstance(name, str) else None
    if isinstance(kind, type):
        for base, outcome in _OUTCOMES:
            if issubclass(kind, base):
                return outcome
    return "error"


def file_totals(path: Path) -> FileTotals:
    """The totals of every complete row of ``path``."""
    totals = FileTotals()
    with path.open("rb") as handle:
        for line in read_lines(handle):
            if not line.complete or line.blank:
                continue
            try:
                row = loads(line.data)
            except UnreadableLineError:
                continue
            if not isinstance(row, Mapping) or "request_id" not in row:
                continue
            totals.rows += 1
            totals.outcomes[row_outcome(row)] += 1
            for cost in _costs(row):
                currency, total = cost.get("currency"), cost.get("total")
                if isinstance(currency, str) and isinstance(total, int | float):
                    totals.cost[currency] = totals.cost.get(currency, 0.0) + total
    return totals


def _costs(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The cost of each call a row carries: its response's or its error's (a rejected answer was
    paid for), or each provider's of a fan-out. A fan-out's own error repeats its providers'
    errors, so it is not counted again."""
    calls = [row.get("response"), row.get("error")] if "fanout" not in row else []
    providers = (row.get("fanout") or {}).get("providers")
    if isinstance(providers, Mapping):
        for call in providers.values():
            if isinstance(call, Mapping):
                calls += [call.get("response"), call.get("error")]
    costs = []
    for call in calls:
        usage = call.get("usage") if isinstance(call, Mapping) else None
        cost = usage.get("cost") if isinstance(usage, Mapping) else None
        if isinstance(cost, Mapping):
            costs.append(cost)
    return costs
