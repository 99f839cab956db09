"""``batch --fail-on``: a non-zero exit for CI when rows failed so; invalid lines are said."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode
from router.emulator import Emulator
from support.batch_lines import request_line, write_lines

MALFORMED = ['{"vendor": ', "not json", "[]", '{"vendor": "nope"}', '{"messages": 3}']


def mixed_input(path: Path) -> Path:
    """Eight lines: three good requests, five malformed lines."""
    good = [request_line(f"ok{n}") for n in range(3)]
    return write_lines(path, good + MALFORMED)


@pytest.mark.usefixtures("emulator")
def test_invalid_lines_are_said_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """5 malformed lines of 8 still exit 0 by default, but stderr says how many were invalid."""
    source = mixed_input(tmp_path / "in.jsonl")
    code = main(["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--no-progress"])
    assert code == ExitCode.OK
    assert "5 of 8 lines run were not valid requests" in capsys.readouterr().err


@pytest.mark.usefixtures("emulator")
def test_fail_on_invalid_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--fail-on invalid,required exits 2 when lines were invalid; every row is still written."""
    source, out = mixed_input(tmp_path / "in.jsonl"), tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(out), "--no-progress", "--fail-on", "invalid"])
    assert code == ExitCode.BAD_INPUT
    assert len(out.read_text().splitlines()) == 8


def test_fail_on_required_exits_3(
    emulator: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A REQUIRED request whose model skipped the search makes --fail-on required exit 3."""
    source = write_lines(
        tmp_path / "in.jsonl",
        [
            request_line("a"),
            request_line("b", "Skip it [[emulator:fault=no_search]]", grounding_mode="REQUIRED"),
        ],
    )
    argv = ["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--no-progress"]
    assert main([*argv, "--fail-on", "invalid,required"]) == ExitCode.GROUNDING_REQUIRED_FAILED
    assert main([*argv, "--overwrite", "--fail-on", "invalid"]) == ExitCode.OK


@pytest.mark.usefixtures("emulator")
def test_clean_run_passes_every_gate(tmp_path: Path) -> None:
    """A run whose rows all succeeded exits 0 under --fail-on any."""
    source = write_lines(tmp_path / "in.jsonl", [request_line("a"), request_line("b")])
    argv = ["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--no-progress"]
    assert main([*argv, "--fail-on", "any"]) == ExitCode.OK


def test_unknown_gate_is_a_usage_error(tmp_path: Path) -> None:
    """--fail-on with a name it does not know is refused by argparse (exit 2)."""
    with pytest.raises(SystemExit) as exited:
        main(["batch", "in.jsonl", "-o", "out.jsonl", "--fail-on", "invalid,typo"])
    assert exited.value.code == 2
