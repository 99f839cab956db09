"""ALS over fan-out rows: each provider counted under its vendor, and their overlap per pair.

The rows are built as the batch writes them (``FanoutResult.to_dict()`` of hand-made answers):

| question | openai cites | vertex cites | domains J | URLs J |
|---|---|---|---|---|
| 1 | a.example/x, b.example/y | a.example/x, c.example/z | 1/3 | 1/3 |
| 2 | d.example/1 | d.example/2 | 1 | 0 |
| 3 | e.example/1 | (provider error) | - | - |
| 4 | nothing | nothing | - | - |

Over the questions both answered (1, 2, 4) openai cites a, b, d and vertex a, c, d: the domain
sets overlap 2 of 4. Every expected number below is counted by hand from this table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from als.overlap import ProviderOverlap
from als.report import build_report
from router.aggregate import aggregate
from router.citations import make_citation
from router.cli import main
from router.errors import ProviderTransientError, RouterError
from router.fanout import FanoutResult
from router.types import LLMResponse
from support.fanout_rows import agreement_row

MODELS = {"openai": "gpt-5", "vertex": "gemini-2.5-flash"}


def answer(vendor: str, *urls: str) -> LLMResponse:
    citations = [
        make_citation(provider=vendor, url=url, rank=n, cited=True)  # type: ignore[arg-type]
        for n, url in enumerate(urls, 1)
    ]
    return LLMResponse(
        vendor=vendor,  # type: ignore[arg-type]
        model=MODELS[vendor],
        content="answer",
        citations=[c for c in citations if c is not None],
        grounded_effective=bool(urls),
    )


def fanout_row(request_id: str, outcomes: dict[str, LLMResponse | RouterError]) -> dict[str, Any]:
    answered = {v: o for v, o in outcomes.items() if isinstance(o, LLMResponse)}
    result = FanoutResult(outcomes=outcomes, aggregate=aggregate(answered))
    return {
        "request_id": request_id,
        "ok": True,
        "line": 1,
        "request": {
            "vendors": list(outcomes),
            "models": MODELS,
            "require": "any",
            "user_location": {"country": "DE"},
        },
        "fanout": result.to_dict(),
    }


def batch_rows() -> list[dict[str, Any]]:
    failure = ProviderTransientError("server error", status_code=500, vendor="vertex")
    return [
        fanout_row(
            "q1",
            {
                "openai": answer("openai", "https://a.example/x", "https://b.example/y"),
                "vertex": answer("vertex", "https://a.example/x", "https://c.example/z"),
            },
        ),
        fanout_row(
            "q2",
            {
                "openai": answer("openai", "https://d.example/1"),
                "vertex": answer("vertex", "https://d.example/2"),
            },
        ),
        fanout_row("q3", {"openai": answer("openai", "https://e.example/1"), "vertex": failure}),
        fanout_row("q4", {"openai": answer("openai"), "vertex": answer("vertex")}),
        {  # a row of one provider: counted by ALS, no part of the overlap
            "request_id": "single",
            "ok": True,
            "line": 5,
            "request": {"vendor": "openai", "model": "gpt-5", "user_location": None},
            "response": answer("openai", "https://f.example/").model_dump(mode="json"),
        },
    ]


def overlap_of(rows: list[Any]) -> ProviderOverlap:
    return build_report(rows).overlap


def test_pair_figures_over_the_batch() -> None:
    """Questions, answers, mean per-question Jaccards and the domain-set Jaccard of the pair."""
    (pair,) = overlap_of(batch_rows()).to_dict()["pairs"]
    assert pair == {
        "providers": ["openai", "vertex"],
        "questions": 4,
        "both_answered": 3,
        "mean_domain_jaccard": round((1 / 3 + 1) / 2, 4),
        "domain_questions": 2,
        "mean_url_jaccard": round((1 / 3 + 0) / 2, 4),
        "url_questions": 2,
        "domain_set_jaccard": 0.5,
        "domains": {"openai": 3, "vertex": 3},
        "shared_domains": 2,
    }


def test_providers_asked_and_answered() -> None:
    """Per provider: the fan-out rows that asked it and those it answered."""
    overlap = overlap_of(batch_rows())
    assert overlap.fanout_rows == 4
    assert overlap.to_dict()["providers"] == {
        "openai": {"asked": 4, "answered": 4},
        "vertex": {"asked": 4, "answered": 3},
    }


def test_each_providers_outcome_counts_under_its_vendor() -> None:
    """A fan-out row is a row per provider, grouped by vendor, model and the row's country."""
    report = build_report(batch_rows(), by=("vendor", "model", "country"))
    groups = {group.label(): group for group in report.groups}
    assert report.answered == 8
    assert report.failed == 1
    assert groups["openai · gpt-5 · DE"].responses == 4
    assert groups["openai · gpt-5 · DE"].domain_counts == {
        "a.example": 1,
        "b.example": 1,
        "d.example": 1,
        "e.example": 1,
    }
    assert groups["openai · gpt-5 · no country"].responses == 1
    assert groups["vertex · gemini-2.5-flash · DE"].responses == 3
    assert groups["vertex · gemini-2.5-flash · DE"].failures == {"ProviderTransientError": 1}


def test_three_providers_give_three_pairs() -> None:
    """Pairs are named in order, whatever order each line listed its vendors in."""
    rows = [
        agreement_row(order, [{"providers": [order[0], order[1]], "domain_jaccard": 1.0}])
        for order in (["vertex", "openai", "anthropic"], ["openai", "anthropic", "vertex"])
    ]
    pairs = overlap_of(rows).to_dict()["pairs"]
    assert [pair["providers"] for pair in pairs] == [
        ["anthropic", "openai"],
        ["anthropic", "vertex"],
        ["openai", "vertex"],
    ]
    assert [pair["domain_questions"] for pair in pairs] == [1, 0, 1]


@pytest.mark.parametrize(
    "odd",
    [
        {"fanout": {"providers": []}},
        {"fanout": {"providers": {"openai": 5}, "aggregate": "x"}},
        {"fanout": {"providers": {"openai": {}, "vertex": {}}, "aggregate": {"providers": 3}}},
        {
            "fanout": {
                "providers": {"openai": {}, "vertex": {}},
                "aggregate": {
                    "providers": ["openai", "vertex"],
                    "agreement": [{"providers": ["openai", "vertex"], "domain_jaccard": "NaN"}],
                    "cited_domains": {"openai": [1, None], "vertex": "x"},
                },
            }
        },
    ],
    ids=["providers-a-list", "aggregate-a-string", "providers-a-number", "odd-figures"],
)
def test_odd_fanout_rows_never_raise(odd: dict[str, Any]) -> None:
    """A hand-edited or damaged fan-out row adds what it can and never stops the report."""
    report = build_report([{"ok": True, **odd}, *batch_rows()])
    assert report.overlap.pair("openai", "vertex") is not None


def write_rows(path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in batch_rows()))
    return path


def test_overlap_command_prints_the_pair_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """als --overlap: one line per pair, with the figures and the questions they are over."""
    assert main(["als", str(write_rows(tmp_path / "out.jsonl")), "--overlap"]) == 0
    printed = capsys.readouterr().out
    assert "provider overlap over 4 fan-out rows (2 providers)" in printed
    cells = [line.split("│") for line in printed.splitlines() if line.startswith("│")]
    assert [cell.strip() for cell in cells[0]][1:-1] == ["openai", "4", "3", "0.67", "0.17", "0.50"]
    assert [cell.strip() for cell in cells[1]][1:-1] == ["vertex", "", "", "n=2", "n=2", "2 of 4"]


def test_overlap_command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """als --overlap --json: the overlap's own JSON, nothing of the per-group report."""
    assert main(["als", str(write_rows(tmp_path / "out.jsonl")), "--overlap", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == overlap_of(batch_rows()).to_dict()


def test_report_json_counts_the_fanout_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The per-group report says how many fan-out rows it expanded."""
    assert main(["als", str(write_rows(tmp_path / "out.jsonl")), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["fanout_rows"] == 4
    assert printed["rows"] == 9
