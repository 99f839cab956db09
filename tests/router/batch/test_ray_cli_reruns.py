"""``batch --engine ray`` run again: ``--retry-failed``, and whole-job totals after ``--resume``.

The CLI runs in this process, on this module's local cluster; the emulator's environment
allows one attempt per call, so a fault scripted once (``500*1``) fails the first run's row and
lets the retried one through.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.batch.ray_engine.layout import plan_layout
from router.cli import main
from router.commands.exit_codes import ExitCode
from router.emulated import emulated_environment
from router.emulator import Emulator
from support.batch_lines import request_line, write_lines
from support.batch_plan import read_rows
from support.ray_cluster import local_cluster

pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    with local_cluster():
        yield


@pytest.fixture
def cli(ray_cluster: None, emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    """The CLI's environment pointed at the emulator, one attempt per call."""
    for name, value in emulated_environment(emulator).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("COLUMNS", "200")
    emulator.clear_requests()
    return emulator


def ray_batch(source: Path, out: Path, *flags: str) -> int:
    return main(
        [
            "batch",
            str(source),
            "-o",
            str(out),
            "--engine",
            "ray",
            "--actors",
            "1:1",
            "--concurrency",
            "4",
            "--no-progress",
            *flags,
        ]
    )


def outcomes(rows: list[dict[str, Any]]) -> dict[str, str]:
    return {row["request_id"]: "ok" if row["ok"] else row["error"]["type"] for row in rows}


def failing_input(path: Path) -> Path:
    """Twelve requests: b, e and h fail once with a 500, c once with a 400."""
    faults = {"b": "500*1", "e": "500*1", "h": "500*1", "c": "400*1"}
    salt = path.parent.name
    return write_lines(
        path,
        [
            request_line(
                name,
                f"{salt} {name}?"
                + (f" [[emulator:fault={faults[name]}]]" if name in faults else ""),
            )
            for name in "abcdefghijkl"
        ],
    )


@pytest.mark.parametrize("output", ["out.jsonl", "out"])
def test_retry_failed_reruns_each_failed_row_once(
    cli: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    """Every failed row routed again, once; every id in the output once, now answered.

    ``out.jsonl`` is merged from the shards, ``out`` is the shard directory itself.
    """
    source, out = failing_input(tmp_path / "in.jsonl"), tmp_path / output
    assert ray_batch(source, out) == ExitCode.OK
    before = outcomes(read_rows(out))
    assert sorted(name for name, outcome in before.items() if outcome != "ok") == [
        "b",
        "c",
        "e",
        "h",
    ]
    cli.clear_requests()
    capsys.readouterr()
    assert ray_batch(source, out, "--retry-failed") == ExitCode.OK
    assert len(cli.requests) == 4
    assert "ran 4 of 4 failed rows again" in capsys.readouterr().err
    rows = read_rows(out)
    assert sorted(row["request_id"] for row in rows) == list("abcdefghijkl")
    assert set(outcomes(rows).values()) == {"ok"}
    shards = read_rows(Path(plan_layout(str(out)).shards))
    assert sorted(row["request_id"] for row in shards) == list("abcdefghijkl")


def test_retry_failed_transient_leaves_other_failures(
    cli: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """=transient routes b, e and h again; c's refusal (a 400) stays as it was."""
    source, out = failing_input(tmp_path / "in.jsonl"), tmp_path / "out.jsonl"
    assert ray_batch(source, out) == ExitCode.OK
    c_row = next(row for row in read_rows(out) if row["request_id"] == "c")
    cli.clear_requests()
    assert ray_batch(source, out, "--retry-failed=transient") == ExitCode.OK
    assert len(cli.requests) == 3
    rows = read_rows(out)
    assert sorted(row["request_id"] for row in rows) == list("abcdefghijkl")
    assert next(row for row in rows if row["request_id"] == "c") == c_row
    assert [name for name, outcome in outcomes(rows).items() if outcome != "ok"] == ["c"]


def test_resumed_run_reports_the_whole_job(
    cli: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two rows before, two more and a bad line resumed: the whole job's totals count five,
    this run's three."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    summary_file = tmp_path / "summary.json"
    write_lines(source, [request_line("a"), request_line("b")])
    assert ray_batch(source, out) == ExitCode.OK
    first_cost = sum(row["response"]["usage"]["cost"]["total"] for row in read_rows(out))
    write_lines(source, [request_line(n) for n in ("a", "b", "c", "d")] + ["not json"])
    capsys.readouterr()
    assert ray_batch(source, out, "--resume", "--summary-json", str(summary_file)) == ExitCode.OK
    assert "whole job after resume: 5 rows (bad_input 1, ok 4)" in capsys.readouterr().out
    report = json.loads(summary_file.read_text())
    assert report["done"] == 3
    assert report["file"]["rows"] == 5
    assert report["file"]["outcomes"] == {"bad_input": 1, "ok": 4}
    rows = read_rows(out)
    cost = sum(row["response"]["usage"]["cost"]["total"] for row in rows if row["ok"])
    assert report["file"]["cost"]["USD"] == pytest.approx(cost, abs=1e-6)
    assert cost > first_cost > 0
