"""Fallbacks across providers: which vendor to try next, when, and what the caller is told.

A request's ``fallbacks`` (DESIGN.md section 12) are vendors, each with an optional model, tried
in order after the request's own vendor. The router (:mod:`router.router`) runs the calls; this
module decides, and keeps the record:

- :func:`chain_of`: the requests to try, the first being the request itself; a fallback's model
  is the one it names, else ``GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>``, else the registry's.
- :func:`fallback_reason`: why an error lets the next vendor try, or None when it does not. A
  REQUIRED or policy failure (``GroundingRequiredFailedError``: another provider's search may
  ground the answer) and a transient error after its retries (``ProviderTransientError``: another
  provider may be up) do; a request error, a configuration error, a reply that cannot be read
  and anything else do not, and a caller's cancellation is no error at all (it passes through).
- :class:`Attempts`: one entry per vendor tried or skipped (``outcome`` "answered", "failed" or
  "skipped", ``reason``, ``error``, ``latency_ms``, ``cost``), put into the answer's
  ``metadata["attempts"]`` with every attempt's cost added into ``usage.cost``, or into the final
  error's ``fallback_attempts`` (and every attempt's cost into its ``usage.cost``) when every
  vendor failed.

A fallback vendor that cannot take the request (documents, a domain filter or search option its
registry row lacks, or a stream it cannot give) is skipped, and why is recorded; the request's
own vendor is the one the caller addressed, so its refusal stays the request error it is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from adapters.registry import provider
from router.errors import GroundingRequiredFailedError, ProviderTransientError, RouterError
from router.logging import get_logger
from router.settings import RouterSettings
from router.types import Cost, LLMRequest, LLMResponse, Usage

__all__ = [
    "Attempts",
    "Outcome",
    "chain_of",
    "fallback_reason",
    "fallbacks_taken",
    "total_cost",
    "with_earlier_cost",
]

Outcome = Literal["answered", "failed", "skipped"]
Ended = TypeVar("Ended", LLMResponse, RouterError)

log = get_logger(__name__)


def chain_of(request: LLMRequest, settings: RouterSettings) -> list[LLMRequest]:
    """The request, then one request per fallback: same question, that vendor and model."""
    chain = [request]
    for fallback in request.fallbacks:
        model = (
            fallback.model
            or settings.default_model(fallback.vendor)
            or provider(fallback.vendor).default_model
        )
        chain.append(
            request.model_copy(update={"vendor": fallback.vendor, "model": model, "fallbacks": []})
        )
    return chain


def fallback_reason(error: RouterError) -> str | None:
    """Why ``error`` lets the next vendor try (its reason), or None when it does not."""
    if isinstance(error, GroundingRequiredFailedError | ProviderTransientError):
        return error.reason or type(error).__name__
    return None


def fallbacks_taken(attempts: object) -> tuple[str, ...]:
    """The reason of each move to the next vendor in an attempts list (all but its last entry).

    ``attempts`` is a response's ``metadata["attempts"]`` or an error's ``fallback_attempts``,
    read as stored data: anything else gives no fallbacks.
    """
    if not isinstance(attempts, list) or len(attempts) < 2:
        return ()
    return tuple(
        str(entry.get("reason") or "unknown") for entry in attempts[:-1] if isinstance(entry, dict)
    )


def total_cost(costs: list[Cost]) -> Cost | None:
    """The costs added up (tokens, searches, total, search units); None when there are none."""
    if not costs:
        return None
    if len(costs) == 1:
        return costs[0]
    return Cost(
        tokens=sum(cost.tokens for cost in costs),
        searches=sum(cost.searches for cost in costs),
        total=sum(cost.total for cost in costs),
        currency=costs[-1].currency,
        estimated=any(cost.estimated for cost in costs),
        search_unit=costs[-1].search_unit,
        search_units=sum(cost.search_units for cost in costs),
        priced_as=costs[-1].priced_as,
        prices_as_of=costs[-1].prices_as_of,
    )


def _cost_of(error: RouterError) -> Cost | None:
    """What a failed attempt cost: a rejected answer was paid for (an answer asked again for
    included, see :func:`with_earlier_cost`); a failed call was not."""
    if isinstance(error.usage, Usage) and error.usage.cost is not None:
        return error.usage.cost
    kept = getattr(error, "response", None)
    if isinstance(kept, LLMResponse) and kept.usage.cost is not None:
        return kept.usage.cost
    return None


def with_earlier_cost(outcome: Ended, earlier: Cost | None) -> Ended:
    """``outcome`` of a call asked again (a response, or the error it ended in) with the cost of
    the answer it replaced added into its ``usage.cost``: that answer was paid for too."""
    if earlier is not None:
        usage = outcome.usage if isinstance(outcome.usage, Usage) else Usage()
        _set_cost(outcome, _added(earlier, usage.cost))
    return outcome


def _set_cost(outcome: LLMResponse | RouterError, cost: Cost | None) -> None:
    """``outcome``'s usage with ``cost`` as its cost (an error without usage gets one)."""
    usage = outcome.usage if isinstance(outcome.usage, Usage) else Usage()
    outcome.usage = usage.model_copy(update={"cost": cost})


def _added(earlier: Cost, cost: Cost | None) -> Cost | None:
    return total_cost([earlier] if cost is None else [earlier, cost])


@dataclass(slots=True)
class Attempts:
    """The record of one call's vendors: what each did, how long it took, what it cost."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    costs: list[Cost] = field(default_factory=list)
    _started: float = field(default_factory=time.perf_counter)

    def start(self) -> None:
        """Mark the start of the next vendor's attempt."""
        self._started = time.perf_counter()

    def skipped(self, request: LLMRequest, error: RouterError) -> None:
        """``request``'s vendor cannot take the request: recorded, and the next one is tried."""
        field_name = getattr(error, "field", None)
        self._add(request, "skipped", f"unsupported_{field_name or 'request'}", None, error)

    def failed(self, request: LLMRequest, error: RouterError) -> bool:
        """Record a failed attempt; True when the next vendor may try (see fallback_reason)."""
        reason = fallback_reason(error)
        self._add(request, "failed", reason or error.reason, _cost_of(error), error)
        return reason is not None

    def answered(self, request: LLMRequest, response: LLMResponse) -> LLMResponse:
        """Record the answer and return it carrying every attempt and their cost together."""
        self._add(request, "answered", None, response.usage.cost, None)
        total = total_cost(self.costs)
        response.usage = response.usage.model_copy(update={"cost": total})
        response.metadata["attempts"] = self.entries
        if len(self.entries) > 1:
            log.info(
                "fallback_answered",
                vendor=response.vendor,
                model=response.model,
                request_id=response.request_id,
                tried=len(self.entries),
            )
        return response

    def exhausted(self, error: RouterError) -> RouterError:
        """The final error, carrying every attempt (when every vendor failed or was skipped).

        When some attempt was paid for (an answer grounding rejected), the error's ``usage`` is
        that of its own rejected answer (none, for a failed call: only a cost) with the cost of
        every attempt added up, as :meth:`answered` gives an answer's.
        """
        error.fallback_attempts = self.entries
        if self.costs:
            _set_cost(error, total_cost(self.costs))
        return error

    def _add(
        self,
        request: LLMRequest,
        outcome: Outcome,
        reason: str | None,
        cost: Cost | None,
        error: RouterError | None,
    ) -> None:
        if cost is not None:
            self.costs.append(cost)
        self.entries.append(
            {
                "vendor": request.vendor,
                "model": request.model,
                "outcome": outcome,
                "reason": reason,
                "error": type(error).__name__ if error is not None else None,
                "message": error.message if error is not None else None,
                "latency_ms": round((time.perf_counter() - self._started) * 1000.0, 3),
                "cost": cost.total if cost is not None else None,
            }
        )
