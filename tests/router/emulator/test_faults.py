"""Fault specs and fault plans: the grammar and the deterministic mix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.emulator import FAULT_KINDS, FaultPlan, FaultSpec, FaultSpecError

DATA = Path(__file__).resolve().parents[2] / "data"
SPECS: list[dict[str, Any]] = json.loads((DATA / "emulator_fault_specs.json").read_text())


@pytest.mark.parametrize("row", SPECS, ids=[r["input"] or "empty" for r in SPECS])
def test_spec_grammar(row: dict[str, Any]) -> None:
    """A spec parses to its canonical form, or is refused with FaultSpecError."""
    if row["expected"] is None:
        with pytest.raises(FaultSpecError):
            FaultSpec.parse(row["input"])
    else:
        assert str(FaultSpec.parse(row["input"])) == row["expected"], row["why"]


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_every_kind_round_trips(kind: str) -> None:
    """Every exported kind parses, and its canonical text parses back to the same spec."""
    spec = FaultSpec.parse(f"{kind}*2")
    assert FaultSpec.parse(str(spec)) == spec


def test_429_defaults_to_one_second_retry_after() -> None:
    """A 429 without an argument still tells the client when to come back."""
    assert FaultSpec.parse("429").retry_after_s == 1.0
    assert FaultSpec.parse("503").retry_after_s is None


def test_mix_is_reproducible_and_near_its_rates() -> None:
    """The same seed gives every text the same fault, and the mix follows the rates."""
    rates = {"429*1": 0.10, "500": 0.05, "no_search": 0.05}
    texts = [f"question number {n}" for n in range(4000)]
    first = [FaultPlan.mix(rates, seed=7).choose(t) for t in texts]
    again = [FaultPlan.mix(rates, seed=7).choose(t) for t in texts]
    assert first == again
    counts = {kind: sum(1 for s in first if s and s.kind == kind) for kind in ("429", "500")}
    assert 0.08 < counts["429"] / len(texts) < 0.12
    assert 0.035 < counts["500"] / len(texts) < 0.065


def test_another_seed_gives_another_mix() -> None:
    """Changing the seed changes which texts fault."""
    texts = [f"q{n}" for n in range(500)]
    one = [FaultPlan.mix({"500": 0.2}, seed=1).choose(t) for t in texts]
    two = [FaultPlan.mix({"500": 0.2}, seed=2).choose(t) for t in texts]
    assert one != two


def test_rate_list_parses_like_mix() -> None:
    """`SPEC=RATE,...` (the CLI form) is the same plan as mix()."""
    assert FaultPlan.parse("429*1=0.1,500=0.05", seed=3) == FaultPlan.mix(
        {"429*1": 0.1, "500": 0.05}, seed=3
    )


def test_fixed_plan_applies_to_every_text() -> None:
    """A plan with one fault gives it to every request."""
    plan = FaultPlan.parse("503:2*1")
    assert {str(plan.choose(t)) for t in ("a", "b", "c")} == {"503:2*1"}


@pytest.mark.parametrize(
    "text",
    ["429=0.7,500=0.4", "429=1.5", "429=abc", "429=0.1,500"],
    ids=["sum_over_one", "rate_over_one", "not_a_number", "missing_rate"],
)
def test_bad_rate_lists_are_refused(text: str) -> None:
    """Rates must be numbers within [0, 1] that add up to at most 1."""
    with pytest.raises(FaultSpecError):
        FaultPlan.parse(text)
