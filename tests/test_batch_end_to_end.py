"""Batch runs end to end: real SDK clients, the emulator, a fault plan, kills and resumes.

Each input line carries its own fault as an emulator directive, so the expected outcome of
every request_id is known in advance: the plan is 10% 429 (Retry-After 0, once), 5% 500 on
every attempt, 5% REQUIRED requests whose model skips the search, 1% malformed lines, the rest
plain grounded answers. The 5,000-request run of the issue is the same test with --runslow.
"""

from __future__ import annotations

import json
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from router.batch import LocalEngine, run_batch
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from support.emulated import (
    ANSWER_TIMEOUT_S,
    batch_cli,
    batch_cli_killed_midway,
    complete_rows,
    rows_of,
)


def settings_for(emulator: Emulator) -> RouterSettings:
    return emulated_settings(
        emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0, timeout_s=ANSWER_TIMEOUT_S
    )


def planned_line(number: int, salt: str) -> tuple[str, str, dict[str, Any]]:
    """(request_id, JSONL line, expected outcome) of input line ``number`` under the plan."""
    vendor = "openai" if (number // 20) % 2 else "vertex"
    request_id = f"req-{number:05d}"
    slot = number % 20
    fault, expected = "", {"outcome": "ok", "attempts": 1}
    if slot in (1, 2):
        fault, expected = "[[emulator:fault=429:0*1]]", {"outcome": "ok", "attempts": 2}
    elif slot == 3:
        fault, expected = "[[emulator:fault=500]]", {"outcome": "ProviderTransientError"}
    elif slot == 4:
        fault, expected = "[[emulator:fault=no_search]]", {"outcome": "not_invoked"}
    if number % 100 == 99:
        return request_id, '{"request_id": "' + request_id + '", "vendor": ', {"outcome": "bad"}
    request = {
        "request_id": request_id,
        "vendor": vendor,
        "model": "gpt-5" if vendor == "openai" else "gemini-2.5-flash",
        "messages": [
            {"role": "user", "content": f"What happened in {salt} town {number}? {fault}"}
        ],
        "grounded": True,
        "grounding_mode": "REQUIRED",
        "user_location": {"country": "DE" if number % 3 else "GB"},
    }
    return request_id, json.dumps(request), expected


def write_plan(path: Path, size: int) -> dict[str, dict[str, Any]]:
    """The planned input; prompts are unique per test, as the emulator counts *N per body."""
    expected: dict[str, dict[str, Any]] = {}
    with path.open("w") as handle:
        for number in range(size):
            request_id, line, outcome = planned_line(number, salt=path.parent.name)
            handle.write(line + "\n")
            expected[request_id] = outcome
    return expected


def outcome_of(row: dict[str, Any]) -> dict[str, Any]:
    if row["ok"]:
        attempts = row["response"]["attempts"]
        return {"outcome": "ok"} if attempts is None else {"outcome": "ok", "attempts": attempts}
    error = row["error"]
    if error["type"] == "RequestValidationError":
        return {"outcome": "bad"}
    if error["type"] == "GroundingRequiredFailedError":
        return {"outcome": error["reason"]}
    return {"outcome": error["type"]}


def assert_matches_plan(
    out: Path, expected: dict[str, dict[str, Any]], *, count_attempts: bool = True
) -> None:
    rows = rows_of(out)
    if not count_attempts:  # a request in flight at a kill may have used its planned 429
        expected = {i: {"outcome": e["outcome"]} for i, e in expected.items()}
        rows = [
            {**row, "response": {**row["response"], "attempts": None}} if row["ok"] else row
            for row in rows
        ]
    ids = [row["request_id"] for row in rows]
    duplicates = [request_id for request_id, n in Counter(ids).items() if n > 1]
    assert duplicates == []
    bad_lines = {request_id for request_id, e in expected.items() if e["outcome"] == "bad"}
    answered = {row["request_id"]: outcome_of(row) for row in rows}
    # A malformed line has no readable id: its row's id is derived from the line instead.
    assert len(rows) == len(expected)
    assert {i: o for i, o in expected.items() if i not in bad_lines} == {
        i: o for i, o in answered.items() if o["outcome"] != "bad"
    }
    assert sum(o["outcome"] == "bad" for o in answered.values()) == len(bad_lines)


@pytest.mark.parametrize(
    "size", [pytest.param(300, id="300"), pytest.param(5_000, id="5000", marks=pytest.mark.slow)]
)
def test_batch_outcomes_match_the_fault_plan(size: int, emulator: Emulator, tmp_path: Path) -> None:
    """Every request_id appears once, and each outcome is the one its fault planned."""
    expected = write_plan(tmp_path / "in.jsonl", size)
    out = tmp_path / "out.jsonl"
    summary = run_batch(
        tmp_path / "in.jsonl",
        out,
        concurrency=32,
        engine=LocalEngine(router=UnifiedLLMAdapter(settings_for(emulator))),
    )
    assert_matches_plan(out, expected)
    assert summary.done == size
    assert summary.outcomes["required_failed"] == sum(
        e["outcome"] == "not_invoked" for e in expected.values()
    )


def test_worker_processes_give_the_same_rows(emulator: Emulator, tmp_path: Path) -> None:
    """With two worker processes the output holds the same outcomes, each id once."""
    expected = write_plan(tmp_path / "in.jsonl", 200)
    out = tmp_path / "out.jsonl"
    summary = run_batch(
        tmp_path / "in.jsonl",
        out,
        settings=settings_for(emulator),
        concurrency=16,
        engine=LocalEngine(workers=2),
    )
    assert_matches_plan(out, expected)
    assert summary.done == 200
    assert not summary.interrupted
    # Every answer's spend crossed back from the workers, rejected answers included.
    answered = summary.outcomes["ok"] + summary.outcomes["required_failed"]
    assert sum(entry["responses"] for entry in summary.cost.by_model) == answered
    assert {(e["vendor"], e["model"]) for e in summary.cost.by_model} == {
        ("openai", "gpt-5"),
        ("vertex", "gemini-2.5-flash"),
    }


@pytest.mark.parametrize("workers", ["1", "2"])
def test_killed_run_resumed_gives_every_id_once(
    workers: str, emulator: Emulator, tmp_path: Path
) -> None:
    """SIGKILL midway, then --resume: the same set of rows as an uninterrupted run."""
    expected = write_plan(tmp_path / "in.jsonl", 400)
    out = tmp_path / "out.jsonl"
    source = str(tmp_path / "in.jsonl")
    batch_cli_killed_midway(
        emulator, source, "-o", str(out), "--concurrency=8", "--workers", workers, after_requests=60
    )
    done_before = len(complete_rows(out))
    assert done_before < len(expected)
    resumed = batch_cli(emulator, str(tmp_path / "in.jsonl"), "-o", str(out), "--resume")
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert "already done (resume)" in stdout
    assert_matches_plan(out, expected, count_attempts=False)


def test_sigint_flushes_and_exits_130(emulator: Emulator, tmp_path: Path) -> None:
    """Ctrl-C lets in-flight requests finish, writes whole rows, prints the summary, exits 130."""
    expected = write_plan(tmp_path / "in.jsonl", 400)
    out = tmp_path / "out.jsonl"
    emulator.latency_s = 0.02
    emulator.clear_requests()
    try:
        process = batch_cli(emulator, str(tmp_path / "in.jsonl"), "-o", str(out))
        emulator.wait_for_requests(40, timeout=60)
        process.send_signal(signal.SIGINT)
        stdout, _ = process.communicate(timeout=60)
    finally:
        emulator.latency_s = 0.0
    assert process.returncode == 130
    assert "batch summary (interrupted)" in stdout
    rows = rows_of(out)  # every line parses: no half-written row
    assert 0 < len(rows) < len(expected)
    resumed = batch_cli(emulator, str(tmp_path / "in.jsonl"), "-o", str(out), "--resume")
    _, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert_matches_plan(out, expected, count_attempts=False)


def test_cli_summary_json(emulator: Emulator, tmp_path: Path) -> None:
    """--summary-json writes the counts the summary table shows."""
    expected = write_plan(tmp_path / "in.jsonl", 40)
    out, summary_file = tmp_path / "out.jsonl", tmp_path / "summary.json"
    process = batch_cli(
        emulator, str(tmp_path / "in.jsonl"), "-o", str(out), "--summary-json", str(summary_file)
    )
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    summary = json.loads(summary_file.read_text())
    assert summary["done"] == len(expected) == summary["total"]
    assert summary["outcomes"]["ok"] == sum(e["outcome"] == "ok" for e in expected.values())
    assert summary["top_domains"]
    assert "batch summary" in stdout
    assert {entry["vendor"] for entry in summary["cost"]["by_vendor"]} == {"openai", "vertex"}
    assert summary["cost"]["totals"][0]["total"] > 0
    assert "estimated cost in USD" in stdout
