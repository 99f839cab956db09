"""The ALS report's coverage by vendor, from the grounding reports batch rows carry."""

from __future__ import annotations

from typing import Any

from als.report import build_report
from als.table import print_report


def _answered(vendor: str, coverage: float | None) -> dict[str, Any]:
    grounding = None if coverage is None else {"coverage": coverage, "support_rate": None}
    response = {"vendor": vendor, "citations": [], "grounding": grounding}
    return {"ok": True, "request": {"vendor": vendor, "model": "m"}, "response": response}


def _rejected(vendor: str, coverage: float) -> dict[str, Any]:
    error = {
        "type": "GroundingRequiredFailedError",
        "reason": "policy",
        "rule": "min_coverage",
        "vendor": vendor,
        "coverage": coverage,
    }
    return {"ok": False, "request": {"vendor": vendor, "model": "m"}, "error": error}


ROWS = [
    _answered("openai", 0.2),
    _answered("openai", 0.5),
    _answered("openai", 0.9),
    _answered("openai", None),  # no policy, no verification: no report
    _answered("anthropic", 0.8),
    _rejected("anthropic", 0.1),  # a REQUIRED policy rejected it: its report still counts
    _answered("vertex", None),
]


def test_coverage_is_reported_by_vendor() -> None:
    """Per vendor: the number of reports and the coverage p10/p50/p90, rejected rows included."""
    groups = {group.label(): group for group in build_report(ROWS, by=["vendor"]).groups}
    assert groups["openai"].grounding_reports == 3
    assert groups["openai"].to_dict()["grounding"]["coverage"] == {
        "p10": 0.2,
        "p50": 0.5,
        "p90": 0.9,
    }
    assert groups["anthropic"].grounding_reports == 2
    assert groups["anthropic"].coverage_quantile(0.5) == 0.1
    assert groups["vertex"].grounding_reports == 0
    assert groups["vertex"].to_dict()["grounding"]["coverage"]["p50"] is None


def test_out_of_range_or_non_numeric_coverage_is_ignored() -> None:
    """A hand-edited row's coverage of 7, -1, "high" or true counts as no report."""
    rows = [_answered("openai", value) for value in (7.0, -1.0)]
    rows += [_answered("openai", 0.5)]
    rows[0]["response"]["grounding"]["coverage"] = "high"
    rows[1]["response"]["grounding"]["coverage"] = True
    (group,) = build_report(rows, by=["vendor"]).groups
    assert group.grounding_reports == 1


def test_the_table_shows_the_coverage_column_only_with_reports(capsys: Any) -> None:
    """The counts table gains a coverage column when some group has grounding reports."""
    from rich.console import Console

    print_report(build_report(ROWS, by=["vendor"]), console=Console(width=200))
    out = capsys.readouterr().out
    assert "coverage" in out
    assert "50% (3)" in out
    print_report(
        build_report([_answered("vertex", None)], by=["vendor"]), console=Console(width=200)
    )
    assert "coverage" not in capsys.readouterr().out
