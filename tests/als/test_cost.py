"""Cost per cited source: each answer's cost split evenly over the sources it cites."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from als.report import build_report
from router.cli import main


def answer(cost: float | None, *domains: str, uncited: tuple[str, ...] = ()) -> dict[str, Any]:
    citations = [{"source_domain": d, "cited": True} for d in domains]
    citations += [{"source_domain": d, "cited": False} for d in uncited]
    usage = {"cost": None if cost is None else {"total": cost, "currency": "USD"}}
    return {
        "ok": True,
        "request": {"vendor": "openai", "model": "gpt-5"},
        "response": {"citations": citations, "usage": usage},
    }


ROWS = [
    answer(0.04, "a.com", "b.com", "c.com", "d.com"),  # 0.01 per cited source
    answer(0.03, "a.com", uncited=("z.com", "y.com")),  # all 0.03 on a.com: z, y only seen
    answer(0.02),  # cites nothing: uncited cost
    answer(None, "a.com"),  # no price
]


def cost_of(rows: list[dict[str, Any]]) -> dict[str, Any]:
    (group,) = build_report(rows, by=()).to_dict(cost=True)["groups"]
    return group["cost"]  # type: ignore[no-any-return]


def test_cost_is_split_over_cited_sources_only() -> None:
    """a.com carries 0.01 from the first answer and all 0.03 of the second."""
    cost = cost_of(ROWS)
    assert cost["top_domains"][0] == {"domain": "a.com", "cost": 0.04, "cited_sources": 2}
    assert {d["domain"]: d["cost"] for d in cost["top_domains"]} == {
        "a.com": 0.04,
        "b.com": 0.01,
        "c.com": 0.01,
        "d.com": 0.01,
    }


def test_group_figures() -> None:
    """Totals, the average cost per cited source, the uncited cost and the unpriced answers."""
    cost = cost_of(ROWS)
    assert cost["total"] == pytest.approx(0.09)
    assert (cost["priced_responses"], cost["unpriced_responses"]) == (3, 1)
    assert cost["cited_sources"] == 5
    assert cost["per_cited_source"] == pytest.approx(0.07 / 5)
    assert cost["uncited_cost"] == pytest.approx(0.02)
    assert cost["currency"] == "USD"


def test_another_currency_is_left_out() -> None:
    """An answer priced in a second currency is not added to the first's figures."""
    euro = answer(1.0, "e.com")
    euro["response"]["usage"]["cost"]["currency"] = "EUR"
    cost = cost_of([ROWS[0], euro])
    assert (cost["total"], cost["unpriced_responses"]) == (0.04, 1)


@pytest.mark.parametrize("total", ["0.1", -1.0, float("nan"), True])
def test_a_malformed_cost_is_unpriced(total: object) -> None:
    """A cost that is not a finite, non-negative number is counted as unpriced."""
    row = answer(0.1, "a.com")
    row["response"]["usage"]["cost"]["total"] = total
    assert cost_of([row])["unpriced_responses"] == 1


def test_cost_stays_out_of_the_report_unless_asked() -> None:
    """Without the flag the JSON report has no cost section."""
    (group,) = build_report(ROWS, by=()).to_dict()["groups"]
    assert "cost" not in group


def test_cli_flag_adds_cost_to_json_and_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--cost-per-source adds the cost section to --json and a cost table for people."""
    monkeypatch.setenv("COLUMNS", "200")
    batch = tmp_path / "out.jsonl"
    batch.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    assert main(["als", str(batch), "--by", "vendor", "--json", "--cost-per-source"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    assert group["cost"]["per_cited_source"] == pytest.approx(0.014)
    assert main(["als", str(batch), "--by", "vendor", "--cost-per-source"]) == 0
    out = capsys.readouterr().out
    assert "estimated cost per cited source in USD" in out
    assert "a.com 0.0400" in out
