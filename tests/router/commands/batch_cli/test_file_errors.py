"""``batch`` refuses unusable files before any request, in one form: cannot read FILE (FLAG)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode

LINE = json.dumps(
    {"vendor": "openai", "model": "gpt-5", "messages": [{"role": "user", "content": "hi"}]}
)


def batch_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run ``batch ARGS``; assert it exited 2 having routed nothing; return its stderr."""
    code = main(["batch", *args, "--no-progress"])
    captured = capsys.readouterr()
    assert code == ExitCode.BAD_INPUT, captured
    assert "batch summary" not in captured.out
    return captured.err


def test_directory_as_input_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory given as input is "is a directory", not "not found"."""
    err = batch_error(capsys, str(tmp_path), "-o", str(tmp_path / "out.jsonl"))
    assert f"cannot read {tmp_path} (IN.jsonl): is a directory" in err


def test_missing_input_names_the_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing input says which argument named it."""
    missing = tmp_path / "nope.jsonl"
    err = batch_error(capsys, str(missing), "-o", str(tmp_path / "out.jsonl"))
    assert f"cannot read {missing} (IN.jsonl): no such file" in err


@pytest.mark.parametrize("content", ["", "\n  \n\n"], ids=["zero-bytes", "blank-lines"])
def test_empty_input_says_so(
    content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An input without a non-blank line is refused as empty, and no output is created."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(content)
    err = batch_error(capsys, str(source), "-o", str(out))
    assert f"cannot read {source} (IN.jsonl): the file is empty" in err
    assert not out.exists()


def test_output_in_missing_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-o`` into a directory that does not exist is an error, not a silent mkdir."""
    source = tmp_path / "in.jsonl"
    source.write_text(LINE + "\n")
    out = tmp_path / "no" / "such" / "out.jsonl"
    err = batch_error(capsys, str(source), "-o", str(out))
    assert f"cannot write {out} (-o): the directory {out.parent} does not exist" in err
    assert not (tmp_path / "no").exists()


def test_output_that_is_a_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-o`` naming a directory says so, in the same form."""
    source = tmp_path / "in.jsonl"
    source.write_text(LINE + "\n")
    err = batch_error(capsys, str(source), "-o", str(tmp_path))
    assert f"cannot write {tmp_path} (-o): is a directory" in err


def test_finished_output_names_both_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output holding results, without --resume or --overwrite, names both flags and is
    left untouched."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(LINE + "\n")
    out.write_text('{"request_id": "x", "ok": true}\n')
    err = batch_error(capsys, str(source), "-o", str(out))
    assert f"cannot write {out} (-o):" in err
    assert "--resume" in err
    assert "--overwrite" in err
    assert out.read_text() == '{"request_id": "x", "ok": true}\n'
