"""``validate`` and ``batch --dry-run``: every line checked and the run priced, nothing sent."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode
from router.emulator import Emulator
from support.batch_lines import request_line, write_lines

OPENAI_BATCH_LINE = json.dumps(
    {
        "custom_id": "job-1",
        "method": "POST",
        "url": "/v1/chat/completions",
        "body": {"model": "gpt-5", "messages": [{"role": "user", "content": "What is new?"}]},
    }
)


def test_validate_counts_lines_models_and_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json gives the valid and invalid lines, calls per model and a list-price estimate."""
    source = write_lines(
        tmp_path / "in.jsonl",
        [
            request_line("a", "x" * 400, max_output_tokens=500),
            request_line("b", "x" * 400, max_output_tokens=500),
            "not json",
        ],
    )
    assert main(["validate", str(source), "--json"]) == ExitCode.BAD_INPUT
    plan = json.loads(capsys.readouterr().out)
    assert (plan["lines"], plan["valid"], plan["invalid"]) == (3, 2, 1)
    assert plan["problems"][0].startswith("line 3: ")
    (calls,) = plan["calls"]
    assert (calls["vendor"], calls["model"], calls["calls"]) == ("openai", "gpt-5", 2)
    one_call = (100 * 1.25 + 500 * 10.0) / 1e6 + 10.0 / 1000
    assert plan["estimated_cost"]["USD"] == pytest.approx(2 * one_call)


def test_validate_of_a_clean_file_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file whose every line is valid exits 0 and prints the estimate."""
    source = write_lines(tmp_path / "in.jsonl", [request_line("a"), request_line("b")])
    assert main(["validate", str(source)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "2 lines, 2 valid, 0 invalid" in out
    assert "openai gpt-5: 2," in out
    assert "estimated cost: " in out


def test_openai_batch_lines_get_a_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A line in OpenAI Batch API format is invalid here, with a hint naming the flag."""
    source = write_lines(tmp_path / "in.jsonl", [OPENAI_BATCH_LINE])
    assert main(["validate", str(source)]) == ExitCode.BAD_INPUT
    assert "--input-format openai-batch" in capsys.readouterr().out


def test_validate_reads_openai_batch_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--input-format openai-batch reads the same file as valid grounded OpenAI requests."""
    source = write_lines(tmp_path / "in.jsonl", [OPENAI_BATCH_LINE])
    code = main(["validate", str(source), "--input-format", "openai-batch", "--json"])
    assert code == ExitCode.OK
    plan = json.loads(capsys.readouterr().out)
    assert plan["valid"] == 1
    assert plan["calls"][0]["searches"] == 1


def test_dry_run_sends_nothing_and_leaves_out_alone(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """batch --dry-run prints the plan, sends no request and creates no output."""
    source = write_lines(tmp_path / "in.jsonl", [request_line("a")])
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(out), "--dry-run", "--no-progress"])
    assert code == ExitCode.OK
    assert "estimated cost: " in capsys.readouterr().out
    assert emulator.requests == []
    assert not out.exists()


def test_batch_runs_openai_batch_format(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """batch --input-format openai-batch routes each line, custom_id as its request_id."""
    source = write_lines(tmp_path / "in.jsonl", [OPENAI_BATCH_LINE])
    out = tmp_path / "out.jsonl"
    argv = ["batch", str(source), "-o", str(out), "--no-progress"]
    assert main([*argv, "--input-format", "openai-batch"]) == ExitCode.OK
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (row["request_id"], row["ok"]) == ("job-1", True)


def test_batch_reads_stdin(
    emulator: Emulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``batch - -o OUT`` reads the requests from stdin."""
    data = (request_line("a") + "\n" + request_line("b") + "\n").encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    out = tmp_path / "out.jsonl"
    assert main(["batch", "-", "-o", str(out), "--no-progress"]) == ExitCode.OK
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(row["request_id"] for row in rows) == ["a", "b"]


def test_empty_stdin_is_named_as_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An empty stdin is refused as "cannot read stdin (IN.jsonl): the file is empty"."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code = main(["batch", "-", "-o", str(tmp_path / "out.jsonl"), "--no-progress"])
    assert code == ExitCode.BAD_INPUT
    assert "cannot read stdin (IN.jsonl): the file is empty" in capsys.readouterr().err
