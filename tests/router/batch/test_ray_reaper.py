"""The watchdog that tears down a local Ray cluster: it ends the processes it was given and
their descendants, named by pid and start time, once the driver's end of its pipe closes.
Ordinary processes stand in for the cluster's: a shell and the child it started."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from router.batch.ray_engine.reaper import children, descendants, watch

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def test_closing_the_watch_ends_the_processes_and_their_descendants() -> None:
    command = ["sh", "-c", "sleep 300 & echo $!; exec sleep 301"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as shell:
        try:
            assert shell.stdout is not None
            grandchild = int(shell.stdout.readline())  # written once the child has started
            (root,) = {found for found in children(os.getpid()) if found[0] == shell.pid}
            tree = descendants([root])
            assert {pid for pid, _ in tree} == {shell.pid, grandchild}
            reaper = watch([root])
            assert reaper is not None
            reaper.close()
            shell.wait(timeout=60)  # ended by the watchdog; collected here, as its parent
            assert descendants(tree) == set()
        finally:
            shell.kill()
