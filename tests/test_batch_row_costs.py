"""A batch's rows add up to its summary's cost: rejected answers are paid for, and on their rows.

The input mixes every way a line can cost money without an answer: REQUIRED answers the
emulator gives without a search or without citations, a grounding policy no answer meets,
fallbacks whose every vendor was rejected (or rejected, then failed), and a fan-out whose one
provider was rejected; beside them plain answers, answers after a fallback and calls that failed
at the provider (which cost nothing). Run through the CLI in one process and over two workers,
the cost of every row (``response.usage.cost``, ``error.usage.cost``, each fan-out provider's)
is the ``--summary-json`` total, to the summary's 6 decimal places.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.emulator import Emulator
from support.emulated import batch_cli, grounded_request, rows_of

# The summary rounds each total to 6 decimal places: rows within that of it add up to it.
SUMMARY_ROUNDING = 5e-7


def lines(salt: str) -> list[dict[str, Any]]:
    """Ten kinds of line, three of each; the prompt is unique to ``salt``."""

    def ask(vendor: str, number: int, fault: str = "", **extra: Any) -> dict[str, Any]:
        question = f"Who chronicled {salt} harbour {number}? {fault}"
        return grounded_request(
            vendor, question, mode="REQUIRED", request_id=f"{salt}-{number:03d}", **extra
        )

    made: list[dict[str, Any]] = []
    for n in range(0, 30, 10):
        made += [
            ask("openai", n),
            ask("openai", n + 1, "[[emulator:fault=no_search]]"),
            ask("vertex", n + 2, "[[emulator:fault=no_citations]]"),
            ask("anthropic", n + 3, grounding_policy={"min_domains": 50}),
            ask("openai", n + 4, "[[emulator:fault=no_search@openai]]", fallbacks=["anthropic"]),
            ask("openai", n + 5, "[[emulator:fault=no_search]]", fallbacks=["anthropic"]),
            ask(
                "openai",
                n + 6,
                "[[emulator:fault=no_search@openai]] [[emulator:fault=500@anthropic]]",
                fallbacks=["anthropic"],
            ),
            ask("vertex", n + 7, "[[emulator:fault=500]]"),
            {
                **ask("openai", n + 8, "[[emulator:fault=no_search@vertex]]"),
                "vendors": ["openai", "vertex"],
            },
            ask("vertex", n + 9),
        ]
    return made


def row_costs(row: dict[str, Any]) -> list[float]:
    """The cost of each call a row records (README, "Rows add up to the summary")."""
    if "fanout" in row:
        outcomes = row["fanout"]["providers"].values()
        calls = [outcome.get("response") or outcome.get("error") for outcome in outcomes]
    else:
        calls = [row.get("response") or row.get("error")]
    costs = [((call or {}).get("usage") or {}).get("cost") for call in calls]
    return [cost["total"] for cost in costs if cost is not None]


def run(emulator: Emulator, tmp_path: Path, *options: str) -> tuple[list[dict[str, Any]], Any]:
    """Run the lines through the CLI; the rows written and the ``--summary-json`` report."""
    source, out, report = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "sum.json"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines(tmp_path.name)))
    process = batch_cli(
        emulator, str(source), "-o", str(out), "--summary-json", str(report), *options
    )
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    return rows_of(out), json.loads(report.read_text())


@pytest.mark.parametrize("workers", [1, 2])
def test_the_rows_cost_what_the_summary_says(
    emulator: Emulator, tmp_path: Path, workers: int
) -> None:
    """Sum of every row's cost, answered or failed, equals the summary's total cost."""
    rows, summary = run(emulator, tmp_path, "--workers", str(workers))
    assert len(rows) == 30
    (total,) = summary["cost"]["totals"]
    rows_total = sum(cost for row in rows for cost in row_costs(row))
    assert rows_total == pytest.approx(total["total"], abs=SUMMARY_ROUNDING)
    rejected = [row for row in rows if not row["ok"] and row_costs(row)]
    # The kinds of line that cost without an answer: REQUIRED (x2), the policy, both fallbacks.
    assert len(rejected) == 5 * 3
    assert sum(cost for row in rejected for cost in row_costs(row)) > 100 * SUMMARY_ROUNDING


def test_a_failed_fallback_row_costs_each_vendor_it_paid(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Rejected by both vendors, the row's error.usage.cost is both answers' cost; rejected then
    failed, the first answer's; a call that got no answer has no usage at all."""
    rows, _ = run(emulator, tmp_path)
    by_id = {row["request_id"]: row for row in rows}
    both = by_id[f"{tmp_path.name}-005"]["error"]
    assert both["usage"]["cost"]["total"] == pytest.approx(
        sum(attempt["cost"] for attempt in both["fallback_attempts"])
    )
    then_failed = by_id[f"{tmp_path.name}-006"]["error"]
    assert then_failed["type"] == "ProviderTransientError"
    first, _ = then_failed["fallback_attempts"]
    assert then_failed["usage"]["cost"]["total"] == first["cost"] > 0
    assert "usage" not in by_id[f"{tmp_path.name}-007"]["error"]


def test_a_resumed_files_totals_count_the_rejected_answers(
    emulator: Emulator, tmp_path: Path
) -> None:
    """--resume over a finished file: its whole-file cost is the first run's summary cost."""
    _, first = run(emulator, tmp_path)
    _, resumed = run(emulator, tmp_path, "--resume")
    assert resumed["done"] == 0
    (total,) = first["cost"]["totals"]
    assert resumed["file"]["cost"]["USD"] == pytest.approx(total["total"], abs=SUMMARY_ROUNDING)
