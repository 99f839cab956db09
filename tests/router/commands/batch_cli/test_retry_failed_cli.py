"""``batch --retry-failed``: the failed rows of OUT run again, each replaced in its place once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode
from router.emulator import Emulator
from support.batch_lines import request_line, write_lines


def rows(path: Path) -> list[dict[str, Any]]:
    """Every row of ``path``, in file order."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def first_run(emulator: Emulator, tmp_path: Path) -> tuple[list[str], Path, Path]:
    """A run in which b fails transiently (a 500, once) and c is refused (a 400, once)."""
    salt = tmp_path.name
    source = write_lines(
        tmp_path / "in.jsonl",
        [
            request_line("a", f"{salt} a?"),
            request_line("b", f"{salt} b? [[emulator:fault=500*1]]"),
            request_line("c", f"{salt} c? [[emulator:fault=400*1]]"),
            request_line("d", f"{salt} d?"),
        ],
    )
    out = tmp_path / "out.jsonl"
    argv = ["batch", str(source), "-o", str(out), "--no-progress"]
    assert main([*argv, "--concurrency", "1"]) == ExitCode.OK
    before = rows(out)
    assert {row["request_id"]: row["ok"] for row in before} == {
        "a": True,
        "b": False,
        "c": False,
        "d": True,
    }
    assert {row["request_id"]: row["error"]["type"] for row in before if not row["ok"]} == {
        "b": "ProviderTransientError",
        "c": "ProviderRequestError",
    }
    emulator.clear_requests()
    return argv, out, source


def test_transient_failures_rerun_in_place(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """=transient re-runs only b, whose new row takes b's place; c stays as it was."""
    argv, out, _ = first_run(emulator, tmp_path)
    order = [row["request_id"] for row in rows(out)]
    c_row = next(row for row in rows(out) if row["request_id"] == "c")
    assert main([*argv, "--retry-failed=transient"]) == ExitCode.OK
    after = rows(out)
    assert [row["request_id"] for row in after] == order
    assert next(row for row in after if row["request_id"] == "b")["ok"] is True
    assert next(row for row in after if row["request_id"] == "c") == c_row
    assert len(emulator.requests) == 1
    assert "ran 1 of 1 failed rows again" in capsys.readouterr().err


def test_all_failures_rerun_each_exactly_once(emulator: Emulator, tmp_path: Path) -> None:
    """--retry-failed re-runs b and c, once each, and every id is in OUT exactly once."""
    argv, out, _ = first_run(emulator, tmp_path)
    order = [row["request_id"] for row in rows(out)]
    assert main([*argv, "--retry-failed"]) == ExitCode.OK
    after = rows(out)
    assert [row["request_id"] for row in after] == order
    assert all(row["ok"] for row in after)
    assert len(emulator.requests) == 2


def test_retry_failed_needs_an_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--retry-failed without an OUT to read says so in the one form."""
    source = write_lines(tmp_path / "in.jsonl", [request_line("a")])
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(out), "--retry-failed", "--no-progress"])
    assert code == ExitCode.BAD_INPUT
    assert f"cannot read {out} (-o): no such file" in capsys.readouterr().err
