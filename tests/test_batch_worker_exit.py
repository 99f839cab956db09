"""Workers of a batch whose parent is SIGKILLed exit by themselves, whatever they were doing.

The parent is killed at several points of its workers' start-up and work, each reached by
watching for it (never by waiting a fixed time): as soon as the first worker process exists
(it is still importing), once every worker exists, and once requests reach the emulator (the
workers are routing). Then no process of the run may be left after a bounded wait. The run is
started in a session of its own, so its processes are found by session id (a worker survives
its parent in the same session); no other process's details are read.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from router.emulator import Emulator
from support.emulated import cli_environment
from support.hostile_lines import valid_request

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

WORKERS = 2
DEADLINE_S = 60.0
POLL_S = 0.005


def session_processes(session: int) -> dict[int, bytes]:
    """The live (not zombie) processes of ``session``, with their command lines."""
    found: dict[int, bytes] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            if os.getsid(pid) != session:
                continue
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # it ended while being looked at
            continue
        if state not in {"Z", "X"}:
            found[pid] = command
    return found


def workers_of(session: int) -> list[int]:
    return [pid for pid, cmd in session_processes(session).items() if b"spawn_main" in cmd]


def poll_until(condition: Callable[[], bool], what: str) -> None:
    """Return once ``condition`` holds; fail if it does not within the deadline."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not reached within {DEADLINE_S} s: {what}")
        time.sleep(POLL_S)


@pytest.fixture
def batch_run(emulator: Emulator, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A two-worker batch of 200 slow requests in a session of its own; cleaned up after."""
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(valid_request(n)) + "\n" for n in range(200)))
    emulator.latency_s = 0.05
    emulator.clear_requests()
    command = ["batch", str(source), "-o", str(tmp_path / "o"), "--workers", str(WORKERS)]
    process = subprocess.Popen(
        [sys.executable, "-m", "router.cli", *command, "--no-progress"],
        env=cli_environment(emulator),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        emulator.latency_s = 0.0
        process.kill()
        process.wait()
        for pid in session_processes(process.pid):  # left by a failing run: ours, by id
            os.kill(pid, signal.SIGKILL)


def first_worker_spawned(run: subprocess.Popen[bytes], emulator: Emulator) -> None:
    """A worker process exists: it is still importing, far from its first request."""
    poll_until(lambda: len(workers_of(run.pid)) >= 1, "a worker process")


def every_worker_spawned(run: subprocess.Popen[bytes], emulator: Emulator) -> None:
    poll_until(lambda: len(workers_of(run.pid)) >= WORKERS, "every worker process")


def workers_routing(run: subprocess.Popen[bytes], emulator: Emulator) -> None:
    """Requests reached the emulator, which answers each after a delay: calls are in flight."""
    emulator.wait_for_requests(4, timeout=DEADLINE_S)


KILL_POINTS: dict[str, Callable[[subprocess.Popen[bytes], Emulator], None]] = {
    "first worker spawned": first_worker_spawned,
    "every worker spawned": every_worker_spawned,
    "workers routing": workers_routing,
}


REPEATS = [
    pytest.param(0, id="once"),
    *(pytest.param(n, id=f"again{n}", marks=pytest.mark.slow) for n in range(1, 5)),
]


@pytest.mark.parametrize("repeat", REPEATS)
@pytest.mark.parametrize("point", KILL_POINTS)
def test_workers_exit_when_the_parent_is_killed(
    point: str, repeat: int, batch_run: subprocess.Popen[bytes], emulator: Emulator
) -> None:
    """SIGKILL of the parent at this point: every process of the run is gone soon after."""
    del repeat
    KILL_POINTS[point](batch_run, emulator)
    batch_run.kill()
    batch_run.wait()
    poll_until(lambda: not session_processes(batch_run.pid), "no process of the run left")
