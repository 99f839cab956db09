"""The Ray engine on a local multi-node cluster whose driver is SIGKILLed mid-run, then resumed.

``ray.cluster_utils.Cluster`` runs a head without CPUs and two worker nodes on this machine, each
a raylet of its own; the driver is the CLI in a subprocess joining it with ``--ray-address``.
Every line is a plain grounded request, so each provider call the emulator sees is one row
routed: what the kill threw away is the calls beyond one per row.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.batch.ray_engine.commits import committed
from router.batch.ray_engine.layout import plan_layout
from router.emulator import Emulator
from support.batch_plan import read_rows
from support.emulated import cli_environment
from support.ray_cluster import two_worker_cluster

pytestmark = [pytest.mark.timeout(900), pytest.mark.xdist_group("ray")]

ROWS = 600
CONCURRENCY = 8
ROWS_PER_BLOCK = 16  # the job's rows per block at this concurrency (job._MIN_ROWS_PER_BLOCK)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A head without CPUs and two worker nodes of two logical CPUs each; this process joined."""
    with two_worker_cluster() as nodes:
        yield nodes


def write_requests(path: Path, size: int) -> set[str]:
    """``size`` plain grounded requests, each answered on its first call; their ids."""
    ids = [f"{path.parent.name}-{n:05d}" for n in range(size)]
    with path.open("w") as handle:
        for n, request_id in enumerate(ids):
            request = {
                "request_id": request_id,
                "vendor": "openai" if n % 2 else "vertex",
                "model": "gpt-5" if n % 2 else "gemini-2.5-flash",
                "messages": [{"role": "user", "content": f"What happened in {request_id}?"}],
                "grounded": True,
            }
            handle.write(json.dumps(request) + "\n")
    return set(ids)


def batch_driver(cluster: Any, emulator: Emulator, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "router.cli",
            "batch",
            *args,
            "--engine",
            "ray",
            "--ray-address",
            cluster.address,
            "--actors",
            "2:2",
            "--concurrency",
            str(CONCURRENCY),
            "--commit-s",
            "0.5",
            "--no-progress",
        ],
        env=cli_environment(emulator),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_until_no_routing_actor(limit_s: float = 120.0) -> None:
    """The killed driver's actors are ended by Ray; a resumed run starts once they are gone."""
    from ray._private.state import actors  # the debug view of the actor table

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        alive = [
            actor
            for actor in actors(actor_state_name="ALIVE").values()
            if "RouteRows" in actor["ActorClassName"]
        ]
        if not alive:
            return
        time.sleep(0.2)
    raise AssertionError("the killed driver's routing actors are still alive")


def blocks_of(checkpoint: Path, names: set[str]) -> Counter[str]:
    """Rows committed per block (the commits of a block share its key) among ``names``."""
    import pyarrow.parquet as pq

    rows: Counter[str] = Counter()
    for name in names:
        key = name.rsplit("-", 1)[0]
        rows[key] += pq.read_metadata(checkpoint / name).num_rows
    return rows


@pytest.mark.slow
def test_driver_killed_mid_run_then_resumed_pays_little_twice(
    cluster: Any, emulator: Emulator, tmp_path: Path
) -> None:
    """SIGKILL of the driver midway: rows were committed before it, the resumed run routes the
    rest in full blocks, every id has one row, and calls over both runs stay within 1.3x rows."""
    ids = write_requests(tmp_path / "in.jsonl", ROWS)
    out = tmp_path / "out.jsonl"
    layout = plan_layout(str(out))
    emulator.latency_s = 0.1  # slow enough that the kill lands midway
    emulator.clear_requests()
    try:
        driver = batch_driver(cluster, emulator, str(tmp_path / "in.jsonl"), "-o", str(out))
        emulator.wait_for_requests(ROWS // 2, timeout=600)
        driver.kill()
        assert driver.wait(timeout=30) == -signal.SIGKILL
        wait_until_no_routing_actor()
        committed_before = committed(plan_layout(str(out))).num_rows
        checkpoint = Path(layout.checkpoint)
        files_before = {p.name for p in checkpoint.glob("*.parquet")}
        resumed = batch_driver(
            cluster, emulator, str(tmp_path / "in.jsonl"), "-o", str(out), "--resume"
        )
        assert resumed.wait(timeout=600) == 0
    finally:
        emulator.latency_s = 0.0
    calls = len(emulator.requests)
    rows = read_rows(out)
    assert 0 < committed_before < ROWS
    assert Counter(row["request_id"] for row in rows) == Counter(ids)
    assert len(read_rows(Path(layout.shards))) == ROWS
    assert ROWS <= calls <= 1.3 * ROWS
    resumed_blocks = blocks_of(checkpoint, {p.name for p in checkpoint.glob("*.parquet")})
    for key in blocks_of(checkpoint, files_before):
        del resumed_blocks[key]
    sizes = sorted(resumed_blocks.values())
    # The read cuts blocks of ROWS_PER_BLOCK; only the input's last block may hold fewer.
    assert sum(sizes) == ROWS - committed_before
    assert sizes[1:] == [ROWS_PER_BLOCK] * (len(sizes) - 1)
