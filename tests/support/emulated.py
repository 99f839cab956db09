"""Routing to the loopback emulator: settings and requests shared by the end-to-end suites.

The settings take their credentials from the environment, which holds the sentinel key and
token for the whole run (``support.secret_watch``), so every route of these suites also checks
that no credential leaks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from adapters.registry import PROVIDERS, vendors
from router.emulated import EmulatorEndpoints, emulated_environment
from router.emulator import Emulator
from router.emulator.apis import API_NAMES
from router.settings import RouterSettings

__all__ = [
    "ANSWER_TIMEOUT_S",
    "MODELS",
    "VENDORS",
    "batch_cli",
    "batch_cli_killed_midway",
    "cli_environment",
    "complete_rows",
    "emulator_settings",
    "grounded_request",
    "rows_of",
]

ANSWER_TIMEOUT_S = 60.0
"""``timeout_s`` for suites that expect every call answered (or failed by its fault) once.

Such a suite counts outcomes and attempts, so a call its deadline ends turns into an error or an
extra attempt. An emulated answer takes milliseconds of CPU; on two cores shared with a dozen
busy processes (load 15-38) a call with 10 s once ran out. No call in these suites waits for a
deadline (no hang, trickle or delay), so 60 s costs nothing and leaves a wide margin.
"""

# Every registered vendor: a new registry row is routed by these suites without editing them.
VENDORS: tuple[str, ...] = vendors()
MODELS = {vendor: row.default_model for vendor, row in PROVIDERS.items()}


def emulator_settings(emulator: EmulatorEndpoints, **overrides: Any) -> RouterSettings:
    """Settings that point every adapter at ``emulator``; keys from the environment, no .env."""
    options: dict[str, Any] = {
        **{f"{vendor}_base_url": emulator.base_url(vendor) for vendor in API_NAMES},
        "google_cloud_project": "hardening",
        "google_cloud_location": "us-central1",
        **overrides,
    }
    return RouterSettings(_env_file=None, **options)  # type: ignore[call-arg]


def grounded_request(
    vendor: str, question: str, *, mode: str = "AUTO", **extra: Any
) -> dict[str, Any]:
    """A grounded request to ``vendor``'s default model in grounding ``mode``."""
    return {
        "vendor": vendor,
        "model": MODELS[vendor],
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
        "grounding_mode": mode,
        **extra,
    }


def cli_environment(emulator: EmulatorEndpoints) -> dict[str, str]:
    """The environment of a CLI subprocess routed to ``emulator``, retrying without delay."""
    return {
        **os.environ,
        **emulated_environment(emulator),
        "GROUNDING_ROUTER_RETRY_INITIAL_DELAY_S": "0",
        "GROUNDING_ROUTER_RETRY_MAX_DELAY_S": "0",
    }


def batch_cli(emulator: EmulatorEndpoints, *args: str) -> subprocess.Popen[str]:
    """``grounding-router batch ARGS --no-progress`` started against ``emulator``, pipes read."""
    return subprocess.Popen(
        [sys.executable, "-m", "router.cli", "batch", *args, "--no-progress"],
        env=cli_environment(emulator),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def batch_cli_killed_midway(emulator: Emulator, *args: str, after_requests: int) -> None:
    """Run ``batch ARGS`` and SIGKILL it once ``emulator`` has seen ``after_requests`` requests.

    Replies are slowed meanwhile so the kill lands midway, with calls still in flight.
    """
    emulator.latency_s = 0.02
    emulator.clear_requests()
    try:
        process = batch_cli(emulator, *args)
        emulator.wait_for_requests(after_requests, timeout=60)
        process.kill()
        process.communicate(timeout=30)
        assert process.returncode == -signal.SIGKILL
    finally:
        emulator.latency_s = 0.0


def rows_of(path: Path) -> list[dict[str, Any]]:
    """The rows of a finished batch's output: every line of ``path``, each a whole row."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def complete_rows(path: Path) -> list[dict[str, Any]]:
    """The rows a killed batch left in ``path``: every complete line, each a whole row.

    A kill may land inside the write of a row: its start, without the newline, is then the
    file's last line, which is not a row (``--resume`` cuts it off).
    """
    if not path.exists():
        return []
    *complete, _cut_off = path.read_bytes().split(b"\n")
    return [json.loads(line) for line in complete]
