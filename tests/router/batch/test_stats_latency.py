"""The latency percentiles of a batch summary: estimates within LATENCY_ACCURACY of the exact."""

from __future__ import annotations

import random

from router.batch.stats import LATENCY_ACCURACY, BatchStats, CallFacts, RowFacts


def answered(latency_ms: float) -> RowFacts:
    return RowFacts("ok", (CallFacts("openai", "ok", None, True, (), latency_ms, None),))


def summary_of(latencies: list[float]) -> tuple[float | None, float | None]:
    stats = BatchStats()
    for latency in latencies:
        stats.record(answered(latency))
    summary = stats.summary(elapsed_s=1.0, interrupted=False)
    return summary.latency_ms_p50, summary.latency_ms_p95


def near(estimate: float | None, exact: float) -> bool:
    return estimate is not None and abs(estimate - exact) <= LATENCY_ACCURACY * exact


def test_p50_and_p95_are_within_the_accuracy_of_the_latency_at_that_rank() -> None:
    """50,000 latencies spread over four orders of magnitude: both estimates within 1%."""
    rng = random.Random(22)
    latencies = [rng.lognormvariate(5.0, 1.5) for _ in range(50_000)]
    p50, p95 = summary_of(latencies)
    ordered = sorted(latencies)
    assert near(p50, ordered[(len(ordered) - 1) // 2])
    assert near(p95, ordered[int(0.95 * (len(ordered) - 1))])


def test_a_single_answer_gives_its_latency_for_both() -> None:
    """One answer of 123.4 ms: p50 and p95 are both 123.4 ms, within 1%."""
    p50, p95 = summary_of([123.4])
    assert near(p50, 123.4)
    assert near(p95, 123.4)


def test_no_answer_gives_no_percentiles() -> None:
    """A run without answers has no latency to report."""
    assert summary_of([]) == (None, None)
