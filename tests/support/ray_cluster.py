"""Local Ray clusters for the engine's tests: one raylet of its own, or several on this machine."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Ray's memory monitor kills workers when the machine's memory runs short, counting every
# process on it: on a shared test machine that is other suites' memory, not this cluster's.
NO_OOM_KILLER = {"memory_monitor_refresh_ms": 0}
LOCAL_CPUS = 3  # the sizing rule's reserve plus two routing actors


@contextmanager
def local_cluster(num_cpus: int = LOCAL_CPUS) -> Iterator[str]:
    """A Ray cluster of its own (whatever else runs on this machine), this process its driver;
    its address, for CLI runs that join it."""
    import ray

    context = ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        _system_config=NO_OOM_KILLER,
    )
    try:
        yield str(context.address_info["address"])
    finally:
        ray.shutdown()


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
            "_system_config": NO_OOM_KILLER,
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
