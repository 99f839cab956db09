"""The Ray engine on a simulated multi-node cluster that loses a node mid-run, without grace.

``ray.cluster_utils.Cluster`` runs a head and two worker nodes on this machine, each a raylet of
its own. The head holds no CPUs, so the reading, routing and writing all run on the workers;
once the job is under way, the node holding a routing actor is removed at once. Ray restarts
the actor elsewhere and retries its blocks; the rows must still be each request_id once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.batch import RayEngine, run_batch
from router.batch.ray_engine.layout import plan_layout
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.batch_plan import check_rows, planned_calls, read_rows, write_plan
from support.emulated import ANSWER_TIMEOUT_S
from support.ray_cluster import two_worker_cluster

# Ray starts processes for its cluster and every job: on a loaded machine a test may take minutes,
# so the suite's two-minute guard is widened here; it still catches a hang.
pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A head without CPUs and two worker nodes of two logical CPUs each; the driver joined."""
    with two_worker_cluster() as nodes:
        yield nodes


def node_of_a_routing_actor(cluster: Any) -> Any:
    """A worker node (never the head) on which a routing actor is alive."""
    from ray._private.state import actors  # the debug view of the actor table

    workers = {node.node_id: node for node in cluster.worker_nodes}
    for actor in actors(actor_state_name="ALIVE").values():
        node_id = actor["Address"]["NodeID"]
        if "RouteRows" in actor["ActorClassName"] and node_id in workers:
            return workers[node_id]
    raise AssertionError("no routing actor is alive on a worker node")


def test_a_node_lost_mid_run_loses_and_repeats_no_row(
    cluster: Any, emulator: Emulator, tmp_path: Path
) -> None:
    """A worker node removed without grace mid-run: one row per request_id, none lost."""
    plan = write_plan(tmp_path / "in.jsonl", 200, salt=tmp_path.name)
    out = tmp_path / "out.jsonl"
    settings = emulated_settings(
        emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0, timeout_s=ANSWER_TIMEOUT_S
    )
    emulator.latency_s = 0.05  # slow enough that the node goes while rows are in flight
    emulator.clear_requests()
    removed: list[Any] = []

    def remove_a_node_once(stats: Any) -> None:
        if not removed and len(emulator.requests) >= 40:
            removed.append(node_of_a_routing_actor(cluster))
            cluster.remove_node(removed[0], allow_graceful=False)

    try:
        summary = run_batch(
            tmp_path / "in.jsonl",
            out,
            settings=settings,
            concurrency=8,
            on_progress=remove_a_node_once,
            engine=RayEngine(actors=(2, 2)),
        )
    finally:
        emulator.latency_s = 0.0
    assert removed, "the run ended before a node could be removed"
    check_rows(read_rows(out), plan)
    check_rows(read_rows(Path(plan_layout(str(out)).shards)), plan)
    assert summary.done == len(plan)
    # Blocks in flight on the lost node are routed again: calls may repeat, rows may not.
    assert len(emulator.requests) >= planned_calls(plan)
