"""Hostile input lines end to end: the batch command on real SDK clients and the emulator.

A line that no parser accepts costs exactly one error row, with one worker and with two, on the
first run and on every resume; so does each of a file of generated hostile lines. Every run
below must end by itself: the subprocess timeout is only a guard against a hang.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from router.cli import main
from router.emulator import Emulator
from support.emulated import cli_environment, rows_of
from support.hostile_lines import POISON_LINES, hostile_line, valid_request

HANG_GUARD_S = 300


def run_batch_cli(emulator: Emulator, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "router.cli", "batch", *args, "--no-progress"],
        env=cli_environment(emulator),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )


def poisoned_input(path: Path) -> Path:
    """101 requests, lines 31 and 61 replaced by the two poison lines."""
    lines = [json.dumps(valid_request(n, request_id=f"r{n}")) for n in range(1, 102)]
    lines[30], lines[60] = POISON_LINES
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("workers", ["1", "2"])
def test_poison_lines_cost_one_row_each_through_three_resumes(
    workers: str, emulator: Emulator, tmp_path: Path
) -> None:
    """101 lines with two poison lines among them: 101 rows, and still 101 after each resume."""
    source, out = poisoned_input(tmp_path / "in.jsonl"), tmp_path / "out.jsonl"
    for resume in ([], ["--resume"], ["--resume"], ["--resume"]):
        result = run_batch_cli(emulator, str(source), "-o", str(out), "--workers", workers, *resume)
        assert result.returncode == 0, result.stderr
        rows = rows_of(out)
        assert sorted(row["line"] for row in rows) == list(range(1, 102))
        assert len({row["request_id"] for row in rows}) == 101
        failed = {row["line"]: row["error"]["message"] for row in rows if not row["ok"]}
        assert sorted(failed) == [31, 61]
        assert failed[31] == "line 31: not readable JSON (nested too deeply)"


def test_poison_rows_in_the_output_are_kept_by_resume_and_skipped_by_als(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OUT holding the poison lines themselves: resume keeps them, ALS counts them unreadable."""
    source, out = poisoned_input(tmp_path / "in.jsonl"), tmp_path / "out.jsonl"
    assert run_batch_cli(emulator, str(source), "-o", str(out)).returncode == 0
    with out.open("a") as handle:
        handle.write("".join(line + "\n" for line in POISON_LINES))
    resumed = run_batch_cli(emulator, str(source), "-o", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_text().splitlines()[-2:] == list(POISON_LINES)
    assert main(["als", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unreadable_lines"] == 2
    assert report["rows"] == 101


def hostile_input(path: Path, size: int) -> int:
    """``size`` generated hostile lines; returns how many are not blank (one row each)."""
    rng = random.Random(size)
    lines = [hostile_line(rng, number) for number in range(1, size + 1)]
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return sum(1 for line in lines if line.strip())


@pytest.mark.parametrize(
    "size", [pytest.param(200, id="200"), pytest.param(5_000, id="5000", marks=pytest.mark.slow)]
)
def test_hostile_lines_through_two_workers_give_one_row_each(
    size: int, emulator: Emulator, tmp_path: Path
) -> None:
    """Generated hostile lines: the run ends by itself, one row per line; resume adds none."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    expected = hostile_input(source, size)
    result = run_batch_cli(emulator, str(source), "-o", str(out), "--workers", "2")
    assert result.returncode == 0, result.stderr
    rows = rows_of(out)
    assert len(rows) == expected
    assert Counter(row["request_id"] for row in rows).most_common(1)[0][1] == 1
    resumed = run_batch_cli(emulator, str(source), "-o", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert len(rows_of(out)) == expected
