"""Running counts of a batch and its end-of-run summary."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from router.batch.spend import CostSummary, Spend, SpendLedger, spend_of, spend_of_error
from router.errors import (
    GroundingRequiredFailedError,
    ProviderError,
    RequestValidationError,
    RouterError,
)
from router.types import LLMResponse

__all__ = ["BatchStats", "BatchSummary", "RowFacts", "outcome_of", "row_facts"]

TOP_DOMAINS = 10


def outcome_of(error: RouterError | None) -> str:
    """The outcome class of a row: ok, required_failed, provider_error, bad_input or error."""
    if error is None:
        return "ok"
    if isinstance(error, GroundingRequiredFailedError):
        return "required_failed"
    if isinstance(error, ProviderError):
        return "provider_error"
    if isinstance(error, RequestValidationError):
        return "bad_input"
    return "error"


# (outcome, reason, grounded_effective, cited domains, latency_ms, spend) of one row; the spend
# of an answered call (even one REQUIRED grounding rejected), None where no answer came back.
RowFacts = tuple[str, str | None, bool, tuple[str, ...], float, Spend | None]


def row_facts(*, response: LLMResponse | None = None, error: RouterError | None = None) -> RowFacts:
    """What the statistics need from one row, as picklable plain data."""
    if response is not None:
        domains = tuple(c["source_domain"] for c in response.citations)
        return (
            "ok",
            None,
            response.grounded_effective,
            domains,
            response.latency_ms,
            spend_of(response),
        )
    reason = error.reason if error else None
    return (outcome_of(error), reason, False, (), 0.0, spend_of_error(error))


@dataclass
class BatchSummary:
    """What a batch run did: counts by outcome, grounding, citations, latency, top domains."""

    total: int = 0
    skipped: int = 0
    done: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    required_failure_reasons: dict[str, int] = field(default_factory=dict)
    grounded_rate: float | None = None
    citations_per_answer: float | None = None
    latency_ms_p50: float | None = None
    latency_ms_p95: float | None = None
    top_domains: list[tuple[str, int]] = field(default_factory=list)
    cost: CostSummary = field(default_factory=CostSummary)
    elapsed_s: float = 0.0
    interrupted: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able view (``--summary-json``)."""
        data = asdict(self)
        data["top_domains"] = [{"domain": d, "citations": n} for d, n in self.top_domains]
        data["cost"] = self.cost.to_dict()
        return data


@dataclass
class BatchStats:
    """Counts updated as each result arrives; cheap enough to read for every progress tick."""

    total: int = 0
    skipped: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    required_reasons: Counter[str] = field(default_factory=Counter)
    grounded_answers: int = 0
    citations: int = 0
    domains: Counter[str] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    spend: SpendLedger = field(default_factory=SpendLedger)

    @property
    def done(self) -> int:
        return sum(self.outcomes.values())

    def record_success(self, response: LLMResponse) -> None:
        self.record(row_facts(response=response))

    def record_error(self, error: RouterError) -> None:
        self.record(row_facts(error=error))

    def record(self, facts: RowFacts) -> None:
        """Count one finished row (facts are plain data, so worker processes can send them)."""
        outcome, reason, grounded, domains, latency_ms, spend = facts
        self.outcomes[outcome] += 1
        if spend is not None:
            self.spend.add(spend)
        if outcome == "required_failed" and reason:
            self.required_reasons[reason] += 1
        if outcome == "ok":
            self.grounded_answers += grounded
            self.citations += len(domains)
            self.domains.update(domains)
            self.latencies_ms.append(latency_ms)

    def merge(self, other: BatchStats) -> None:
        """Add the rows counted in ``other`` (a part of the same run, counted elsewhere)."""
        self.outcomes.update(other.outcomes)
        self.required_reasons.update(other.required_reasons)
        self.grounded_answers += other.grounded_answers
        self.citations += other.citations
        self.domains.update(other.domains)
        self.latencies_ms.extend(other.latencies_ms)
        self.spend.merge(other.spend)

    def summary(self, *, elapsed_s: float, interrupted: bool) -> BatchSummary:
        answered = self.outcomes["ok"]
        p50, p95 = _percentiles(self.latencies_ms)
        return BatchSummary(
            total=self.total,
            skipped=self.skipped,
            done=self.done,
            outcomes=dict(sorted(self.outcomes.items())),
            required_failure_reasons=dict(sorted(self.required_reasons.items())),
            grounded_rate=self.grounded_answers / answered if answered else None,
            citations_per_answer=self.citations / answered if answered else None,
            latency_ms_p50=p50,
            latency_ms_p95=p95,
            top_domains=self.domains.most_common(TOP_DOMAINS),
            cost=self.spend.summary(),
            elapsed_s=elapsed_s,
            interrupted=interrupted,
        )


def _percentiles(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    if len(values) == 1:
        return values[0], values[0]
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49], cuts[94]
