"""Batch lines asking several providers, end to end: real SDK clients, the emulator, kills.

Each fan-out line carries its own faults as emulator directives scoped to one API, so the
outcome of every provider of every line is known in advance: plain answers, a 500 on Vertex
alone (require "any": the row is answered, Vertex's error kept beside OpenAI's answer), OpenAI
skipping the search under REQUIRED with require "all" (the row fails, its partial fan-out kept),
a 429 on OpenAI once (retried), and lines of one provider among them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from router.batch import LocalEngine, run_batch
from router.cli import main
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.settings import RouterSettings
from support.emulated import (
    ANSWER_TIMEOUT_S,
    batch_cli,
    batch_cli_killed_midway,
    complete_rows,
    rows_of,
)

PAIR = ["openai", "vertex"]


def settings_for(emulator: Emulator) -> RouterSettings:
    return emulated_settings(
        emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0, timeout_s=ANSWER_TIMEOUT_S
    )


def planned_line(number: int, salt: str) -> tuple[str, dict[str, Any]]:
    """(JSONL line, expected {ok, providers: {vendor: outcome}}) of input line ``number``."""
    request_id = f"q-{number:04d}"
    slot = number % 5
    fault, require, expected = "", "any", {"ok": True, "providers": dict.fromkeys(PAIR, "ok")}
    if slot == 1:
        fault = "[[emulator:fault=500@vertex]]"
        expected = {"ok": True, "providers": {"openai": "ok", "vertex": "ProviderTransientError"}}
    elif slot == 2:
        fault, require = "[[emulator:fault=no_search@openai]]", "all"
        expected = {"ok": False, "providers": {"openai": "not_invoked", "vertex": "ok"}}
    elif slot == 3:
        fault = "[[emulator:fault=429:0*1@openai]]"
    line: dict[str, Any] = {
        "request_id": request_id,
        "messages": [{"role": "user", "content": f"Who reported on {salt} town {number}? {fault}"}],
        "grounded": True,
        "grounding_mode": "REQUIRED",
        "user_location": {"country": "DE"},
    }
    if slot == 4:  # a line of one provider among the fan-outs
        line |= {"vendor": "vertex", "model": "gemini-2.5-flash"}
        expected = {"ok": True, "providers": {"vertex": "ok"}}
    else:
        line |= {"vendors": PAIR, "require": require}
    return json.dumps(line), expected


def write_plan(path: Path, size: int) -> dict[str, dict[str, Any]]:
    """The planned input; prompts are unique per test, as the emulator counts *N per body."""
    expected: dict[str, dict[str, Any]] = {}
    with path.open("w") as handle:
        for number in range(size):
            line, outcome = planned_line(number, salt=path.parent.name)
            handle.write(line + "\n")
            expected[json.loads(line)["request_id"]] = outcome
    return expected


def outcome(part: dict[str, Any]) -> str:
    """A provider's outcome: ok, a REQUIRED failure's reason, or the error type."""
    if part.get("ok"):
        return "ok"
    error = part["error"]
    kind = str(error["type"])
    return str(error["reason"]) if kind == "GroundingRequiredFailedError" else kind


def outcome_of(row: dict[str, Any]) -> dict[str, Any]:
    if "fanout" in row:
        providers = row["fanout"]["providers"]
        return {"ok": row["ok"], "providers": {v: outcome(p) for v, p in providers.items()}}
    return {"ok": row["ok"], "providers": {row["request"]["vendor"]: outcome(row)}}


def assert_matches_plan(out: Path, expected: dict[str, dict[str, Any]]) -> None:
    rows = rows_of(out)
    ids = Counter(row["request_id"] for row in rows)
    assert [request_id for request_id, n in ids.items() if n > 1] == []
    assert {row["request_id"]: outcome_of(row) for row in rows} == expected


def test_fanout_rows_hold_each_providers_outcome_and_the_aggregate(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Every line one row; a fan-out row's request, providers and aggregate as the plan says."""
    expected = write_plan(tmp_path / "in.jsonl", 40)
    out = tmp_path / "out.jsonl"
    summary = run_batch(tmp_path / "in.jsonl", out, settings=settings_for(emulator), concurrency=8)
    assert_matches_plan(out, expected)
    assert summary.done == 40
    row = next(row for row in rows_of(out) if row["request_id"] == "q-0000")
    assert row["request"] == {
        "vendors": PAIR,
        "models": {"openai": "gpt-5", "vertex": "gemini-2.5-flash"},
        "require": "any",
        "grounded": True,
        "grounding_mode": "REQUIRED",
        "user_location": {"country": "DE"},
    }
    assert set(row) == {"schema_version", "request_id", "ok", "line", "request", "fanout"}
    aggregate = row["fanout"]["aggregate"]
    assert aggregate["providers"] == PAIR
    assert aggregate["entries"]
    assert [pair["providers"] for pair in aggregate["agreement"]] == [PAIR]


def test_require_not_met_is_an_error_row_keeping_the_partial_fanout(
    emulator: Emulator, tmp_path: Path
) -> None:
    """require 'all' and OpenAI skipped the search: ok false, the FanoutError, Vertex's answer."""
    write_plan(tmp_path / "in.jsonl", 3)
    out = tmp_path / "out.jsonl"
    run_batch(tmp_path / "in.jsonl", out, settings=settings_for(emulator))
    row = next(row for row in rows_of(out) if row["request_id"] == "q-0002")
    assert row["ok"] is False
    assert row["error"]["type"] == "FanoutError"
    assert row["error"]["reason"] == "providers_failed"
    assert row["error"]["providers"]["openai"]["reason"] == "not_invoked"
    assert row["fanout"]["providers"]["vertex"]["ok"] is True
    assert row["fanout"]["aggregate"]["providers"] == ["vertex"]


def test_the_summary_counts_rows_once_and_each_providers_call(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Rows by outcome; calls per vendor; every answer's cost under its own vendor."""
    expected = write_plan(tmp_path / "in.jsonl", 20)
    summary = run_batch(
        tmp_path / "in.jsonl", tmp_path / "out.jsonl", settings=settings_for(emulator)
    )
    assert summary.outcomes == {"fanout_failed": 4, "ok": 16}
    assert summary.fanout_rows == 16
    calls: Counter[tuple[str, str]] = Counter()
    for plan in expected.values():
        calls.update(plan["providers"].items())
    assert summary.provider_outcomes == {
        "openai": {"ok": calls["openai", "ok"], "required_failed": 4},
        "vertex": {"ok": calls["vertex", "ok"], "provider_error": 4},
    }
    assert summary.answers == calls["openai", "ok"] + calls["vertex", "ok"]
    assert summary.required_failure_reasons == {"not_invoked": 4}
    # Answers cost, and so do the answers REQUIRED grounding rejected.
    spent = {entry["vendor"]: entry["responses"] for entry in summary.cost.by_vendor}
    assert spent == {"openai": calls["openai", "ok"] + 4, "vertex": calls["vertex", "ok"]}


def test_als_counts_each_provider_and_their_overlap(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ALS over the output: every provider's answers under its vendor; the pair's overlap."""
    expected = write_plan(tmp_path / "in.jsonl", 20)
    out = tmp_path / "out.jsonl"
    run_batch(tmp_path / "in.jsonl", out, settings=settings_for(emulator))
    capsys.readouterr()  # the run's log lines
    calls: Counter[tuple[str, str]] = Counter()
    for plan in expected.values():
        calls.update(plan["providers"].items())
    assert main(["als", str(out), "--by", "vendor", "--json"]) == 0
    groups = {g["key"]["vendor"]: g for g in json.loads(capsys.readouterr().out)["groups"]}
    assert groups["openai"]["responses"] == calls["openai", "ok"]
    assert groups["vertex"]["responses"] == calls["vertex", "ok"]
    assert groups["vertex"]["failures"]["by_type"] == {"ProviderTransientError": 4}
    assert main(["als", str(out), "--overlap", "--json"]) == 0
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert pair["providers"] == PAIR
    assert pair["questions"] == 16
    assert pair["both_answered"] == 8  # lines 1 and 2 of every five lose one provider
    assert pair["domain_questions"] == 8
    assert 0.0 <= pair["mean_domain_jaccard"] <= 1.0


def test_worker_processes_route_fanout_lines(emulator: Emulator, tmp_path: Path) -> None:
    """With two worker processes the rows are the same, each id once."""
    expected = write_plan(tmp_path / "in.jsonl", 30)
    out = tmp_path / "out.jsonl"
    summary = run_batch(
        tmp_path / "in.jsonl",
        out,
        settings=settings_for(emulator),
        concurrency=8,
        engine=LocalEngine(workers=2),
    )
    assert_matches_plan(out, expected)
    assert summary.fanout_rows == 24
    assert set(summary.provider_outcomes) == set(PAIR)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_killed_fanout_run_resumed_gives_every_row_once(
    workers: str, emulator: Emulator, tmp_path: Path
) -> None:
    """SIGKILL of the CLI midway, then --resume: every line's row exactly once, as planned."""
    expected = write_plan(tmp_path / "in.jsonl", 200)
    source, out = str(tmp_path / "in.jsonl"), tmp_path / "out.jsonl"
    batch_cli_killed_midway(
        emulator, source, "-o", str(out), "--concurrency=8", "--workers", workers, after_requests=80
    )
    assert len(complete_rows(out)) < len(expected)
    resumed = batch_cli(emulator, source, "-o", str(out), "--resume")
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    assert "already done (resume)" in stdout
    assert "provider calls" in stdout
    assert_matches_plan(out, expected)
