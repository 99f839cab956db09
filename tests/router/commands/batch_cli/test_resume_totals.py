"""After ``--resume`` the summary also gives totals for the whole output file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode
from support.batch_lines import request_line, write_lines


@pytest.mark.usefixtures("emulator")
def test_resumed_run_reports_the_whole_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two rows before, two more and a bad line resumed: the whole-file totals count five."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    summary_file = tmp_path / "summary.json"
    write_lines(source, [request_line("a"), request_line("b")])
    argv = ["batch", str(source), "-o", str(out), "--no-progress"]
    assert main(argv) == ExitCode.OK
    write_lines(source, [request_line(n) for n in ("a", "b", "c", "d")] + ["not json"])
    capsys.readouterr()
    assert main([*argv, "--resume", "--summary-json", str(summary_file)]) == ExitCode.OK
    stdout = capsys.readouterr().out
    assert "whole file after resume: 5 rows (bad_input 1, ok 4)" in stdout
    totals = json.loads(summary_file.read_text())
    assert totals["done"] == 3
    assert totals["file"]["rows"] == 5
    assert totals["file"]["outcomes"] == {"bad_input": 1, "ok": 4}
    assert totals["file"]["cost"]["USD"] > 0
