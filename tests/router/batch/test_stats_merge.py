"""Counting a run in parts: what the Ray engine's write tasks count adds up to the whole."""

from __future__ import annotations

from router.batch.spend import Spend
from router.batch.stats import BatchStats, CallFacts, RowFacts

PRICED = Spend(
    vendor="openai", model="gpt-5", currency="USD", tokens=0.01, searches=0.02, total=0.03
)
UNPRICED = Spend(vendor="vertex", model="gemini-2.5-flash")

FACTS: list[RowFacts] = [
    RowFacts(
        "ok", (CallFacts("openai", "ok", None, True, ("bbc.co.uk", "dw.com"), 120.0, PRICED),)
    ),
    RowFacts("ok", (CallFacts("vertex", "ok", None, False, (), 80.0, UNPRICED),)),
    RowFacts(
        "required_failed",
        (CallFacts("openai", "required_failed", "not_invoked", False, (), 0.0, PRICED),),
    ),
    RowFacts(
        "required_failed",
        (CallFacts("vertex", "required_failed", "no_citations", False, (), 0.0, UNPRICED),),
    ),
    RowFacts(
        "provider_error", (CallFacts("vertex", "provider_error", None, False, (), 0.0, None),)
    ),
    RowFacts("bad_input", ()),
    RowFacts("ok", (CallFacts("openai", "ok", None, True, ("dw.com",), 95.0, PRICED),)),
    RowFacts(
        "fanout_failed",
        (
            CallFacts("openai", "ok", None, True, ("dw.com",), 70.0, PRICED),
            CallFacts("vertex", "provider_error", None, False, (), 0.0, None),
        ),
        fanout=True,
    ),
]


def test_merged_parts_equal_the_whole() -> None:
    """Every count, call, domain, latency and spend of two parts merged equals one count of all."""
    whole, first, second = BatchStats(), BatchStats(), BatchStats()
    for number, facts in enumerate(FACTS):
        whole.record(facts)
        (first if number % 2 else second).record(facts)
    first.merge(second)
    # A sketch has no equality of its own: the merged one gives the same quantiles as the whole.
    for quantile in (0.0, 0.5, 0.95, 1.0):
        merged = first.latency_sketch.get_quantile_value(quantile)
        assert merged == whole.latency_sketch.get_quantile_value(quantile)
    first.latency_sketch = whole.latency_sketch
    assert first == whole
    assert first.summary(elapsed_s=1.0, interrupted=False) == whole.summary(
        elapsed_s=1.0, interrupted=False
    )
