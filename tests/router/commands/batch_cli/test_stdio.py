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
