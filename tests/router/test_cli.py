"""The grounding-router command line, run in-process."""

from __future__ import annotations

import pytest

from router.cli import main

SUBCOMMANDS = ["demo", "route", "batch", "als", "emulator"]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`grounding-router COMMAND --help` explains the command and exits 0."""
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    assert f"grounding-router {command}" in capsys.readouterr().out


def test_top_level_help_lists_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    """The top-level help documents every exit code."""
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in SUBCOMMANDS:
        assert command in out
    assert "3 REQUIRED grounding failed" in out


def test_unknown_command_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown subcommand exits 2 with argparse's message."""
    with pytest.raises(SystemExit) as exited:
        main(["frobnicate"])
    assert exited.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
