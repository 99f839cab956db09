"""A local Ray cluster of several raylets on this machine, for the engine's node tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def two_worker_cluster() -> Iterator[Any]:
    """A head without CPUs and two worker nodes of two logical CPUs each; this process joined.

    Joined before the workers exist, the driver is the head's: a removed worker never takes the
    driver with it (all nodes share this machine's address).
    """
    import ray
    from ray.cluster_utils import Cluster

    nodes = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 0,
            "include_dashboard": False,
            # Ray's memory monitor counts every process of this shared test machine.
            "_system_config": {"memory_monitor_refresh_ms": 0},
        },
    )
    try:
        ray.init(address=nodes.address, log_to_driver=False, configure_logging=False)
        for _ in range(2):
            nodes.add_node(num_cpus=2)
        nodes.wait_for_nodes()
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()
