"""Running counts of a batch and its end-of-run summary.

A row is counted once, by its outcome. The provider calls behind it are counted one by one: a
row of one request made one call, a fan-out row (``"vendors": [...]``) one per provider it
asked, a bad input line none. Answer statistics (grounded rate, citations, latency, domains),
REQUIRED failure reasons, per-provider outcomes and spend are over calls, so each provider's
answer in a fan-out row counts, as an answer of its own vendor.

Grounding reports (a policy applied, see ``router.grounding``) are counted per vendor: coverage
and support rate as histograms of whole percents (their p10, p50 and p90 are exact to 1%), and
the policy's broken rules, from answers (AUTO) and from REQUIRED failures alike.

Nothing here grows with the number of rows (the domain counts grow with the distinct domains
cited). So the latency percentiles come from a DDSketch (``ddsketch``, Datadog's mergeable
quantile sketch), not from a list of every latency: its p50 and p95 are within
:data:`LATENCY_ACCURACY` (1%) of the latency at that rank, in a few kilobytes however long the run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

from ddsketch import DDSketch

from router.batch.spend import CostSummary, Spend, SpendLedger, spend_of, spend_of_error
from router.errors import (
    FanoutError,
    GroundingRequiredFailedError,
    ProviderError,
    RequestValidationError,
    RouterError,
)
from router.fallback import fallbacks_taken
from router.grounding.report import GroundingReport
from router.types import LLMResponse

__all__ = [
    "LATENCY_ACCURACY",
    "BatchStats",
    "BatchSummary",
    "CallFacts",
    "RowFacts",
    "call_facts",
    "fanout_facts",
    "outcome_of",
    "row_facts",
]

TOP_DOMAINS = 10
LATENCY_ACCURACY = 0.01
"""The relative error bound of the latency percentiles of a summary."""


def outcome_of(error: RouterError | None) -> str:
    """The outcome class of a row or call: ok, required_failed, provider_error, bad_input,
    fanout_failed (a fan-out row whose ``require`` was not met) or error."""
    if error is None:
        return "ok"
    if isinstance(error, GroundingRequiredFailedError):
        return "required_failed"
    if isinstance(error, ProviderError):
        return "provider_error"
    if isinstance(error, RequestValidationError):
        return "bad_input"
    if isinstance(error, FanoutError):
        return "fanout_failed"
    return "error"


class CallFacts(NamedTuple):
    """What the statistics need from one provider call, as picklable plain data.

    ``spend`` is that of an answered call (even one REQUIRED grounding rejected), None where no
    answer came back.
    """

    vendor: str | None
    outcome: str
    reason: str | None
    grounded: bool
    domains: tuple[str, ...]
    latency_ms: float
    spend: Spend | None
    coverage: float | None = None
    support_rate: float | None = None
    policy_rules: tuple[str, ...] = ()
    fallbacks: tuple[str, ...] = ()


class RowFacts(NamedTuple):
    """One row's outcome and its provider calls: one, several (``fanout``) or none (bad input)."""

    outcome: str
    calls: tuple[CallFacts, ...]
    fanout: bool = False


def call_facts(
    *, response: LLMResponse | None = None, error: RouterError | None = None, vendor: str | None
) -> CallFacts:
    """The facts of one call to ``vendor``: its answer, or its error."""
    if response is not None:
        domains = tuple(c["source_domain"] for c in response.citations)
        return CallFacts(
            vendor,
            "ok",
            None,
            response.grounded_effective,
            domains,
            response.latency_ms,
            spend_of(response),
            *_grounding_facts(response.grounding),
            fallbacks_taken(response.metadata.get("attempts")),
        )
    reason = error.reason if error else None
    report = getattr(error, "report", None) if error is not None else None
    return CallFacts(
        vendor,
        outcome_of(error),
        reason,
        False,
        (),
        0.0,
        spend_of_error(error),
        *_grounding_facts(report if isinstance(report, GroundingReport) else None),
        fallbacks_taken(error.fallback_attempts if error is not None else None),
    )


def _grounding_facts(
    report: GroundingReport | None,
) -> tuple[float | None, float | None, tuple[str, ...]]:
    if report is None:
        return None, None, ()
    rules = tuple(violation.rule for violation in report.violations)
    return report.coverage, report.support_rate, rules


def row_facts(
    *,
    response: LLMResponse | None = None,
    error: RouterError | None = None,
    vendor: str | None = None,
) -> RowFacts:
    """The facts of a row of one request (``vendor``'s), or of a line that is no request.

    A bad input line made no call; any other failure is the call's (vendor taken from the error
    when not given).
    """
    if response is not None:
        return RowFacts("ok", (call_facts(response=response, vendor=response.vendor),))
    outcome = outcome_of(error)
    if outcome == "bad_input":
        return RowFacts(outcome, ())
    called = vendor or (error.vendor if error is not None else None)
    return RowFacts(outcome, (call_facts(error=error, vendor=called),))


def fanout_facts(
    outcomes: Mapping[str, LLMResponse | RouterError], error: RouterError | None
) -> RowFacts:
    """The facts of a fan-out row: each provider's call, and ``error`` when require was not met."""
    calls = tuple(
        call_facts(response=outcome, vendor=vendor)
        if isinstance(outcome, LLMResponse)
        else call_facts(error=outcome, vendor=vendor)
        for vendor, outcome in outcomes.items()
    )
    return RowFacts(outcome_of(error), calls, fanout=True)


@dataclass
class BatchSummary:
    """What a batch run did: rows by outcome; calls by provider and outcome; grounding,
    citations, latency, top domains and cost of the answers (see the module)."""

    total: int = 0
    skipped: int = 0
    done: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    fanout_rows: int = 0
    provider_outcomes: dict[str, dict[str, int]] = field(default_factory=dict)
    required_failure_reasons: dict[str, int] = field(default_factory=dict)
    answers: int = 0
    answers_by_vendor: dict[str, int] = field(default_factory=dict)
    fallback_reasons: dict[str, int] = field(default_factory=dict)
    grounded_rate: float | None = None
    citations_per_answer: float | None = None
    latency_ms_p50: float | None = None
    latency_ms_p95: float | None = None
    top_domains: list[tuple[str, int]] = field(default_factory=list)
    grounding: dict[str, dict[str, Any]] = field(default_factory=dict)
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
    fanout_rows: int = 0
    provider_outcomes: dict[str, Counter[str]] = field(default_factory=dict)
    required_reasons: Counter[str] = field(default_factory=Counter)
    answers: int = 0
    vendor_answers: Counter[str] = field(default_factory=Counter)
    fallback_reasons: Counter[str] = field(default_factory=Counter)
    grounded_answers: int = 0
    citations: int = 0
    domains: Counter[str] = field(default_factory=Counter)
    latency_sketch: DDSketch = field(default_factory=lambda: DDSketch(LATENCY_ACCURACY))
    spend: SpendLedger = field(default_factory=SpendLedger)
    grounding: dict[str, VendorGrounding] = field(default_factory=dict)

    @property
    def done(self) -> int:
        return sum(self.outcomes.values())

    def record_success(self, response: LLMResponse) -> None:
        self.record(row_facts(response=response))

    def record_error(self, error: RouterError) -> None:
        self.record(row_facts(error=error))

    def record(self, facts: RowFacts) -> None:
        """Count one finished row (facts are plain data, so worker processes can send them)."""
        self.outcomes[facts.outcome] += 1
        self.fanout_rows += facts.fanout
        for call in facts.calls:
            self._record_call(call)

    def _record_call(self, call: CallFacts) -> None:
        if call.vendor is not None:
            self.provider_outcomes.setdefault(call.vendor, Counter())[call.outcome] += 1
        if call.spend is not None:
            self.spend.add(call.spend)
        if call.outcome == "required_failed" and call.reason:
            self.required_reasons[call.reason] += 1
        if call.coverage is not None or call.policy_rules:
            self.grounding.setdefault(call.vendor or "unknown", VendorGrounding()).add(call)
        self.fallback_reasons.update(call.fallbacks)
        if call.outcome == "ok":
            self.answers += 1
            self.vendor_answers[call.vendor or "unknown"] += 1
            self.grounded_answers += call.grounded
            self.citations += len(call.domains)
            self.domains.update(call.domains)
            self.latency_sketch.add(call.latency_ms)

    def merge(self, other: BatchStats) -> None:
        """Add the rows counted in ``other`` (a part of the same run, counted elsewhere)."""
        self.outcomes.update(other.outcomes)
        self.fanout_rows += other.fanout_rows
        for vendor, counts in other.provider_outcomes.items():
            self.provider_outcomes.setdefault(vendor, Counter()).update(counts)
        self.required_reasons.update(other.required_reasons)
        self.answers += other.answers
        self.vendor_answers.update(other.vendor_answers)
        self.fallback_reasons.update(other.fallback_reasons)
        self.grounded_answers += other.grounded_answers
        self.citations += other.citations
        self.domains.update(other.domains)
        self.latency_sketch.merge(other.latency_sketch)
        self.spend.merge(other.spend)
        for vendor, grounding in other.grounding.items():
            self.grounding.setdefault(vendor, VendorGrounding()).merge(grounding)

    def summary(self, *, elapsed_s: float, interrupted: bool) -> BatchSummary:
        answered = self.answers
        p50, p95 = _percentiles(self.latency_sketch)
        return BatchSummary(
            total=self.total,
            skipped=self.skipped,
            done=self.done,
            outcomes=dict(sorted(self.outcomes.items())),
            fanout_rows=self.fanout_rows,
            provider_outcomes={
                vendor: dict(sorted(counts.items()))
                for vendor, counts in sorted(self.provider_outcomes.items())
            },
            required_failure_reasons=dict(sorted(self.required_reasons.items())),
            answers=answered,
            answers_by_vendor=dict(sorted(self.vendor_answers.items())),
            fallback_reasons=dict(sorted(self.fallback_reasons.items())),
            grounded_rate=self.grounded_answers / answered if answered else None,
            citations_per_answer=self.citations / answered if answered else None,
            latency_ms_p50=p50,
            latency_ms_p95=p95,
            top_domains=self.domains.most_common(TOP_DOMAINS),
            grounding={
                vendor: grounding.summary() for vendor, grounding in sorted(self.grounding.items())
            },
            cost=self.spend.summary(),
            elapsed_s=elapsed_s,
            interrupted=interrupted,
        )


class ShareHistogram:
    """Shares in [0, 1] counted by whole percent: bounded, mergeable, quantiles exact to 1%."""

    def __init__(self) -> None:
        self.counts = [0] * 101

    def add(self, share: float) -> None:
        self.counts[min(100, max(0, round(share * 100)))] += 1

    def merge(self, other: ShareHistogram) -> None:
        self.counts = [
            mine + theirs for mine, theirs in zip(self.counts, other.counts, strict=True)
        ]

    @property
    def count(self) -> int:
        return sum(self.counts)

    def quantile(self, q: float) -> float | None:
        """The share at quantile ``q`` (at the nearest rank), or None when nothing was counted."""
        total = self.count
        if not total:
            return None
        rank = round(q * (total - 1))
        seen = 0
        for percent, count in enumerate(self.counts):
            seen += count
            if seen > rank:
                return percent / 100
        return 1.0

    def percentiles(self) -> dict[str, float | None]:
        return {"p10": self.quantile(0.1), "p50": self.quantile(0.5), "p90": self.quantile(0.9)}


@dataclass
class VendorGrounding:
    """One vendor's grounding reports: coverage and support distributions, broken rules."""

    coverage: ShareHistogram = field(default_factory=ShareHistogram)
    support_rate: ShareHistogram = field(default_factory=ShareHistogram)
    policy_failures: Counter[str] = field(default_factory=Counter)

    def add(self, call: CallFacts) -> None:
        if call.coverage is not None:
            self.coverage.add(call.coverage)
        if call.support_rate is not None:
            self.support_rate.add(call.support_rate)
        self.policy_failures.update(call.policy_rules)

    def merge(self, other: VendorGrounding) -> None:
        self.coverage.merge(other.coverage)
        self.support_rate.merge(other.support_rate)
        self.policy_failures.update(other.policy_failures)

    def summary(self) -> dict[str, Any]:
        return {
            "reports": self.coverage.count,
            "coverage": self.coverage.percentiles(),
            "support_rate": self.support_rate.percentiles(),
            "policy_failures": dict(sorted(self.policy_failures.items())),
        }


def _percentiles(sketch: DDSketch) -> tuple[float | None, float | None]:
    return sketch.get_quantile_value(0.5), sketch.get_quantile_value(0.95)
