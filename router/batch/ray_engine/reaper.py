"""Tearing down the local Ray cluster a run started, however the driver ends.

``ray.init()`` without an address starts a cluster whose processes (GCS, raylet, the dashboard
and runtime-env agents, workers) belong to the driver. ``ray.shutdown()`` stops them when the
driver ends normally; a driver killed with SIGKILL runs no code at all, and the raylet's agents
were seen to outlive it by one to three minutes. So, when :func:`watch` is given the cluster's
processes, it starts this file as a small watchdog process of its own session (a Ctrl-C or a
signal to the driver's process group does not reach it), holding the read end of a pipe whose
write end only the driver holds. When the pipe closes (the driver called :meth:`Reaper.close`
after ``ray.shutdown()``, exited, or was killed), the watchdog ends every process of the cluster
still running and their descendants: SIGTERM, then SIGKILL for any still there after a bounded
wait. Processes are named by pid and start time, so a pid reused since is never touched.

Linux only (it reads ``/proc``); elsewhere :func:`watch` does nothing. This file imports only the
standard library, so the watchdog starts without importing the router or Ray.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO

__all__ = ["Reaper", "children", "descendants", "watch"]

_PROC = Path("/proc")
_TERM_GRACE_S = 5.0
_POLL_S = 0.05
_REFRESH_S = 1.0

Identity = tuple[int, int]
"""A process: its pid and its start time (clock ticks since boot), unique while it runs."""


def _stat(pid: int) -> tuple[int, int] | None:
    """``(parent pid, start time)`` of a running process, or None when it has gone."""
    try:
        text = (_PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    if fields[0] == "Z":  # a zombie has ended; only its parent's wait is missing
        return None
    return int(fields[1]), int(fields[19])


def _processes() -> dict[int, tuple[int, int]]:
    """Every running process: its parent and start time, from one read of each stat file."""
    processes: dict[int, tuple[int, int]] = {}
    for entry in _PROC.iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None:
            processes[int(entry.name)] = stat
    return processes


def children(pid: int) -> set[Identity]:
    """The running children of ``pid``."""
    return {(child, started) for child, (parent, started) in _processes().items() if parent == pid}


def descendants(roots: Iterable[Identity]) -> set[Identity]:
    """``roots`` that still run (same start time) and every running descendant of theirs."""
    processes = _processes()
    kids: dict[int, list[int]] = {}
    for child, (parent, _) in processes.items():
        kids.setdefault(parent, []).append(child)
    found: set[Identity] = set()
    pending = [pid for pid, started in roots if processes.get(pid, (0, None))[1] == started]
    while pending:
        pid = pending.pop()
        if pid not in processes or (pid, processes[pid][1]) in found:
            continue
        found.add((pid, processes[pid][1]))
        pending.extend(kids.get(pid, ()))
    return found


def _alive(pid: int, started: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[1] == started


def _signal(processes: Iterable[Identity], number: signal.Signals) -> None:
    for pid, started in processes:
        if _alive(pid, started):
            with contextlib.suppress(OSError):
                os.kill(pid, number)


def _wait_gone(processes: set[Identity], seconds: float) -> set[Identity]:
    """The processes still running after waiting up to ``seconds`` for them to end."""
    deadline = time.monotonic() + seconds
    running = {p for p in processes if _alive(*p)}
    while running and time.monotonic() < deadline:
        time.sleep(_POLL_S)
        running = {p for p in running if _alive(*p)}
    return running


def reap(roots: Iterable[Identity]) -> None:
    """End ``roots`` and all their descendants: SIGTERM, then SIGKILL for what remains."""
    roots = set(roots)
    targets = descendants(roots)  # the roots that still run among them
    _signal(targets, signal.SIGTERM)
    remaining = _wait_gone(targets, _TERM_GRACE_S)
    remaining |= descendants(remaining) - targets  # anything started meanwhile
    _signal(remaining, signal.SIGKILL)
    _wait_gone(remaining, _TERM_GRACE_S)


class Reaper:
    """The driver's end of the watchdog: close it once the cluster has been shut down."""

    def __init__(self, process: subprocess.Popen[bytes], pipe: IO[bytes]) -> None:
        self._process = process
        self._pipe = pipe

    @property
    def pid(self) -> int:
        """The watchdog's process id."""
        return self._process.pid

    def close(self) -> None:
        """Let the watchdog end what is left of the cluster, and wait for it (bounded)."""
        if not self._pipe.closed:
            self._pipe.close()
        try:
            self._process.wait(timeout=4 * _TERM_GRACE_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def watch(processes: Iterable[Identity]) -> Reaper | None:
    """Start the watchdog over ``processes`` (the cluster's); None where /proc is missing."""
    roots = sorted(processes)
    if not roots or not (_PROC / "self" / "stat").exists():
        return None
    process = subprocess.Popen(
        [sys.executable, "-I", __file__],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(roots).encode() + b"\n")
    process.stdin.flush()
    return Reaper(process, process.stdin)


def _main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stdin = sys.stdin.buffer
    known = {(int(pid), int(started)) for pid, started in json.loads(stdin.readline() or "[]")}
    while True:  # until the driver's end closes: closed, exited or killed
        readable, _, _ = select.select([stdin], [], [], _REFRESH_S)
        if readable and not os.read(stdin.fileno(), 65536):
            break
        # Processes the cluster starts later (workers, agents) are known while their parents
        # run: once the driver is gone, the raylet may end first and leave them to init.
        known |= descendants(known)
    reap(known)


if __name__ == "__main__":
    _main()
