"""At a terminal, each retry of `route` is a line on stderr; a piped stderr stays quiet."""

from __future__ import annotations

import io

import pytest

from router.cli import main
from router.emulator import Emulator


class _Terminal(io.StringIO):
    """A captured stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _route_with_one_500(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch, stderr: io.StringIO
) -> int:
    monkeypatch.setenv("OPENAI_BASE_URL", emulator.openai_base_url)
    monkeypatch.setenv("GROUNDING_ROUTER_RETRY_INITIAL_DELAY_S", "0")
    monkeypatch.setenv("GROUNDING_ROUTER_RETRY_MAX_DELAY_S", "0")
    monkeypatch.setattr("sys.stderr", stderr)
    return main(
        ["route", "--vendor", "openai", "--model", "gpt-5", "Retry me [[emulator:fault=500*1]]"]
    )


def test_each_retry_is_one_line_on_a_terminal(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One 500 then an answer: stderr on a terminal says attempt 2/3 once, with the status."""
    stderr = _Terminal()
    assert _route_with_one_500(emulator, monkeypatch, stderr) == 0
    lines = [line for line in stderr.getvalue().splitlines() if "provider_call_retrying" in line]
    assert len(lines) == 1
    assert "attempt=2/3" in lines[0]
    assert "status_code=500" in lines[0]


def test_retries_stay_off_a_piped_stderr(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With stderr not a terminal, the default level keeps retry lines out."""
    stderr = io.StringIO()
    assert _route_with_one_500(emulator, monkeypatch, stderr) == 0
    assert "provider_call_retrying" not in stderr.getvalue()
