"""Worker processes log the way the parent does: on stderr, at its level, redacted, sanitized.

Each request below fails REQUIRED grounding in a worker (the emulator's model skips the
search), so every worker logs ``route_failed`` at level info, with a request_id that carries
the Vertex access token (a secret of no recognisable shape: only its registration redacts it)
and terminal escape sequences.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from router.emulator import Emulator
from support.emulated import cli_environment
from support.hostile_lines import valid_request
from support.secret_watch import SENTINEL_VERTEX_TOKEN

HANG_GUARD_S = 300
REQUESTS = 40
ESCAPES = "\x1b]0;title\x07\x9b2J\u202e"


def failing_requests(path: Path) -> Path:
    lines = [
        json.dumps(
            valid_request(
                2 * n,  # even: Vertex
                request_id=f"{SENTINEL_VERTEX_TOKEN}-{n}{ESCAPES}",
                grounded=True,
                grounding_mode="REQUIRED",
                messages=[{"role": "user", "content": f"log {n} [[emulator:fault=no_search]]"}],
            )
        )
        for n in range(REQUESTS)
    ]
    path.write_text("".join(line + "\n" for line in lines))
    return path


def run_batch(emulator: Emulator, tmp_path: Path, *options: str) -> Any:
    environment = {
        **cli_environment(emulator),
        "GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN": SENTINEL_VERTEX_TOKEN,
    }
    source = failing_requests(tmp_path / "in.jsonl")
    command = ["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--workers", "2"]
    return subprocess.run(
        [sys.executable, "-m", "router.cli", *options, *command, "--no-progress"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )


def assert_safe_and_redacted(output: str) -> None:
    assert SENTINEL_VERTEX_TOKEN not in output
    assert not any(ch in output for ch in "\x1b\x07\x9b\u202e"), "a raw escape reached the output"


def test_worker_events_arrive_on_stderr_as_json_lines_redacted(
    emulator: Emulator, tmp_path: Path
) -> None:
    """--log-json --log-level info: worker events are JSON lines on stderr, none on stdout."""
    result = run_batch(emulator, tmp_path, "--log-json", "--log-level", "info")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stderr.splitlines() if line.strip()]
    from_workers = [e for e in events if "batch_worker" in e]
    assert {e["batch_worker"] for e in from_workers} == {0, 1}
    failed = [e for e in from_workers if e["event"] == "route_failed"]
    assert len(failed) == REQUESTS
    assert all(e["request_id"].startswith("[REDACTED]-") for e in failed)
    assert "route_failed" not in result.stdout
    assert "batch summary" in result.stdout
    assert_safe_and_redacted(result.stderr)
    assert_safe_and_redacted(result.stdout)


@pytest.mark.parametrize("log_json", [False, True], ids=["console", "json"])
def test_worker_events_below_the_level_are_not_shown(
    log_json: bool, emulator: Emulator, tmp_path: Path
) -> None:
    """At the default level (warning) a worker's info events appear nowhere."""
    result = run_batch(emulator, tmp_path, *(["--log-json"] if log_json else []))
    assert result.returncode == 0, result.stderr
    assert "route_failed" not in result.stdout + result.stderr
    assert_safe_and_redacted(result.stdout + result.stderr)


def test_worker_console_events_are_sanitized_for_the_terminal(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Console lines of worker events carry no escape sequences and no secret."""
    result = run_batch(emulator, tmp_path, "--log-level", "info")
    assert result.returncode == 0, result.stderr
    worker_lines = [line for line in result.stderr.splitlines() if "batch_worker=" in line]
    assert sum("route_failed" in line for line in worker_lines) == REQUESTS
    assert "route_failed" not in result.stdout
    assert_safe_and_redacted(result.stderr + result.stdout)
