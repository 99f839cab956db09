"""A ``batch --engine ray`` driver killed with SIGKILL leaves no process of its local cluster.

The driver starts its own local Ray cluster (no address given). It is killed midway through a
run against the emulator; every process of that cluster (GCS, raylet, the agents, workers) must
end within a bounded wait. The wait watches each process's pidfd (readable once the process has
exited), so it is neither a fixed sleep nor a timing assertion: it ends as soon as the last
process is gone, and only a cluster left running reaches the bound.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from router.emulator import Emulator
from support.batch_plan import write_plan
from support.emulated import cli_environment

pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("ray")]

# Longer than the watchdog's SIGTERM grace and SIGKILL wait together, far shorter than the one to
# three minutes the raylet's agents outlived a killed driver.
BOUND_S = 45.0

Process = tuple[int, str]


def process_tree(root: int) -> list[Process]:
    """Every running descendant of ``root`` (pid and command line), read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    found: list[Process] = []
    pending = [root]
    while pending:
        parent = pending.pop()
        for pid in (pid for pid, ppid in parents.items() if ppid == parent):
            found.append((pid, command_line(pid)))
            pending.append(pid)
    return found


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def still_running(processes: list[Process], bound_s: float) -> list[Process]:
    """The processes that have not exited after waiting up to ``bound_s`` for all of them."""
    pidfds: dict[int, Process] = {}
    for process in processes:
        try:
            pidfds[os.pidfd_open(process[0])] = process
        except ProcessLookupError:  # gone already
            continue
    try:
        poller = select.poll()
        for fd in pidfds:
            poller.register(fd, select.POLLIN)
        waiting = set(pidfds)
        deadline = time.monotonic() + bound_s
        while waiting and (left := deadline - time.monotonic()) > 0:
            for fd, _event in poller.poll(left * 1000):
                poller.unregister(fd)
                waiting.discard(fd)
        return [pidfds[fd] for fd in waiting]
    finally:
        for fd in pidfds:
            os.close(fd)


@pytest.mark.slow
def test_a_killed_driver_leaves_no_process_of_its_local_cluster(
    emulator: Emulator, tmp_path: Path
) -> None:
    """After SIGKILL of the driver, every process of the cluster it started exits, bounded."""
    write_plan(tmp_path / "in.jsonl", 200, salt=tmp_path.name)
    environment = cli_environment(emulator)
    environment.pop("RAY_ADDRESS", None)  # the driver starts a cluster of its own
    emulator.latency_s = 0.05  # slow enough that the kill lands midway
    emulator.clear_requests()
    command = [sys.executable, "-m", "router.cli", "batch", str(tmp_path / "in.jsonl")]
    options = ["--engine", "ray", "--actors", "1:1", "--concurrency", "8", "--no-progress"]
    try:
        driver = subprocess.Popen(
            [*command, "-o", str(tmp_path / "out.jsonl"), *options],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        emulator.wait_for_requests(20, timeout=300)
        cluster = process_tree(driver.pid)
        driver.send_signal(signal.SIGKILL)
        assert driver.wait(timeout=30) == -signal.SIGKILL
    finally:
        emulator.latency_s = 0.0
    assert any("raylet" in command for _, command in cluster), cluster
    assert any("agent" in command for _, command in cluster), cluster
    assert still_running(cluster, BOUND_S) == []
