"""``batch --max-cost``: no new request once the estimated spend passes the limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode
from router.emulator import Emulator
from support.batch_lines import request_line, write_lines


@pytest.mark.parametrize("workers", ["1", "2"])
def test_spend_past_the_limit_stops_the_run(
    workers: str, emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A limit below one answer's cost: the run drains, says why, and --resume finishes it."""
    source = write_lines(tmp_path / "in.jsonl", [request_line(f"r{n}") for n in range(40)])
    out, summary_file = tmp_path / "out.jsonl", tmp_path / "summary.json"
    argv = ["batch", str(source), "-o", str(out), "--no-progress", "--concurrency", "1"]
    argv += ["--workers", workers]
    code = main([*argv, "--max-cost", "0.000001", "--summary-json", str(summary_file)])
    assert code == ExitCode.INTERRUPTED
    stdout = capsys.readouterr().out
    assert "batch summary (interrupted)" in stdout
    assert "stopped by --max-cost 1e-06 USD" in stdout
    assert json.loads(summary_file.read_text())["stopped_by"] == "max_cost"
    written = len(out.read_text().splitlines())
    assert 0 < written < 40
    assert main([*argv, "--resume"]) == ExitCode.OK
    assert len(out.read_text().splitlines()) == 40


@pytest.mark.usefixtures("emulator")
def test_limit_not_reached_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A limit the run stays under: every row, exit 0, no stop notice."""
    source = write_lines(tmp_path / "in.jsonl", [request_line(f"r{n}") for n in range(5)])
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(out), "--no-progress", "--max-cost", "1000"])
    assert code == ExitCode.OK
    assert len(out.read_text().splitlines()) == 5
    assert "--max-cost" not in capsys.readouterr().out
