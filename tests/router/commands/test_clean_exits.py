"""The command ends cleanly when its stdout's reader goes away; a busy port is bad input."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode


@pytest.mark.parametrize(
    "command",
    [["demo"], ["providers", "--json"], ["providers"], ["als", "--help"]],
    ids=" ".join,
)
def test_closed_stdout_ends_quietly(command: list[str]) -> None:
    """``grounding-router ... | head`` ends with no traceback, and with 141 (as on SIGPIPE) when
    output was lost."""
    process = subprocess.Popen(
        [sys.executable, "-m", "router.cli", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()
    with process.stderr:
        stderr = process.stderr.read().decode()
    code = process.wait(timeout=120)
    assert "Traceback" not in stderr
    assert "BrokenPipe" not in stderr
    assert code in (ExitCode.OK, ExitCode.BROKEN_PIPE)


def test_busy_emulator_port_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    """``emulator --port N`` on a port already taken exits 2 and names the flag."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["emulator", "--port", str(port)])
    assert code == ExitCode.BAD_INPUT
    assert f"--port {port}" in capsys.readouterr().err
