"""The emulator in a child process, for tests that count this process's descriptors and threads.

An in-process emulator owns the server side of every connection, and it closes those sockets on
its own thread whenever it notices the client has gone: a count taken in the same process then
depends on how far that thread has got. In a child process the count is the client's alone.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["EmulatorAddresses", "emulator_process"]

_STARTUP_LINES = {
    "OpenAI Responses": "openai_base_url",
    "Vertex AI": "vertex_base_url",
    "Gemini API": "gemini_base_url",
    "Perplexity": "perplexity_base_url",
    "OpenRouter": "openrouter_base_url",
    "Anthropic": "anthropic_base_url",
}


@dataclass(frozen=True)
class EmulatorAddresses:
    """Where a running emulator listens: what ``emulator_settings`` needs."""

    openai_base_url: str
    vertex_base_url: str
    gemini_base_url: str
    perplexity_base_url: str
    openrouter_base_url: str
    anthropic_base_url: str

    def base_url(self, vendor: str) -> str:
        """The ``base_url`` the emulator announced for ``vendor``'s SDK."""
        url: str = getattr(self, f"{vendor}_base_url")
        return url


@contextmanager
def emulator_process(*options: str) -> Iterator[EmulatorAddresses]:
    """Run ``grounding-router emulator [options]`` on a free port; yield its addresses once it
    listens.

    The command announces its base URLs only after the socket is bound, so reading those lines
    is the readiness check: no polling.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "router.cli", "emulator", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        found: dict[str, str] = {}
        for line in process.stdout:
            label, _, url = line.partition(":")
            if label.strip() in _STARTUP_LINES:
                found[_STARTUP_LINES[label.strip()]] = url.strip()
            if len(found) == len(_STARTUP_LINES):
                break
        if len(found) != len(_STARTUP_LINES):
            raise RuntimeError(f"the emulator exited with {process.wait()} before listening")
        yield EmulatorAddresses(**found)
    finally:
        process.terminate()
        process.communicate(timeout=30)
