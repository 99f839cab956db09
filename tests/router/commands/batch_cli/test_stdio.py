"""``batch - -o -``: requests from stdin, rows to stdout, the summary on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode
from support.batch_lines import request_line


@pytest.mark.usefixtures("emulator")
def test_stdin_to_stdout_keeps_stdout_to_rows(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every stdout line is a row; the summary is on stderr."""
    data = "".join(request_line(n) + "\n" for n in ("a", "b", "c")).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["batch", "-", "-o", "-", "--no-progress"]) == ExitCode.OK
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert sorted(row["request_id"] for row in rows) == ["a", "b", "c"]
    assert "batch summary" in captured.err


def test_resume_into_stdout_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--resume with -o - is refused: it must read OUT back."""
    source = tmp_path / "in.jsonl"
    source.write_text(request_line("a") + "\n")
    code = main(["batch", str(source), "-o", "-", "--resume", "--no-progress"])
    assert code == ExitCode.BAD_INPUT
    assert "cannot write - (-o)" in capsys.readouterr().err


def batch_output(tmp_path: Path) -> bytes:
    """The rows of a two-request batch run against the emulator."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(request_line("a") + "\n" + request_line("b") + "\n")
    assert main(["batch", str(source), "-o", str(out), "--no-progress"]) == ExitCode.OK
    return out.read_bytes()


@pytest.mark.usefixtures("emulator")
def test_als_reads_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``als -`` reports on batch rows given on stdin."""
    rows = batch_output(tmp_path)
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(rows)))
    assert main(["als", "-", "--json"]) == ExitCode.OK
    assert json.loads(capsys.readouterr().out)


@pytest.mark.usefixtures("emulator")
def test_report_from_stdin_to_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report - -o -`` writes the HTML page to stdout, its note to stderr."""
    rows = batch_output(tmp_path)
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(rows)))
    assert main(["report", "-", "-o", "-"]) == ExitCode.OK
    captured = capsys.readouterr()
    assert captured.out.lstrip().lower().startswith("<!doctype html")
    assert "2 row(s)" in captured.err


def test_report_from_stdin_needs_a_target(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report -`` without -o says where the page must go."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main(["report", "-"]) == ExitCode.BAD_INPUT
    assert "-o" in capsys.readouterr().err
