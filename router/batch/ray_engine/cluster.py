"""Joining a Ray cluster, and sizing a job's actors so that it can always run to its end.

The sizing rule. Ray Data holds logical CPUs for the life of every actor and task it starts,
and starts nothing it cannot place, so a job whose parts cannot all be placed at once waits
forever without an error. A batch job places, at the same time, its routing actors
(``ACTOR_CPUS`` each: the work waits on providers, a fraction will do), the task reading the
input (``TASK_CPUS``) and the task cutting what it read into blocks of rows (Ray Data's
streaming repartition, a whole CPU: Ray Data gives it no other size); the actors commit their
own rows, so there is no write task and no checkpoint-filter actor. So the routing actors may
hold at most the cluster's logical CPUs less ``RESERVED_CPUS``: ``--actors`` is clamped to
that, and a cluster too small for one actor is refused.

The default pool is fixed, not autoscaled: one actor per ``CALLS_PER_ACTOR`` requests of the
job's concurrency, as many as fit. Each actor's share of the concurrency is computed from the
actors running (see :class:`.coordination.JobProgress`), so ``--concurrency`` is the job's
requests in flight whatever the pool's size. A local cluster this process starts gets logical
CPUs for one actor per core plus the reserve, and is torn down with the run however the driver
ends (:func:`disconnect`, and :mod:`router.batch.ray_engine.reaper` when the driver is killed).
"""

from __future__ import annotations

import math
import os

from router.batch.ray_engine.reaper import Reaper, children, descendants, watch

__all__ = [
    "ACTOR_CPUS",
    "CALLS_PER_ACTOR",
    "REPARTITION_CPUS",
    "RESERVED_CPUS",
    "TASK_CPUS",
    "actor_range",
    "cluster_cpus",
    "connect",
    "disconnect",
]

ACTOR_CPUS = 0.5
TASK_CPUS = 0.5
REPARTITION_CPUS = 1.0
RESERVED_CPUS = TASK_CPUS + REPARTITION_CPUS
# Requests in flight one routing actor (one process, one event loop) is given by default.
CALLS_PER_ACTOR = 32


def connect(address: str | None) -> bool:
    """Join the cluster at ``address``, or start a local one; True when this call started it.

    A process already connected (a test, a notebook) keeps its connection. Without an address
    (nor ``RAY_ADDRESS``) a local cluster is started for the run, never one found by chance: a
    cluster on this machine (``ray start --head``) is joined with ``address="auto"``.
    """
    import ray

    if ray.is_initialized():
        return False
    joining = address or os.environ.get("RAY_ADDRESS")
    before = set() if joining else children(os.getpid())
    ray.init(
        address=joining or "local",
        num_cpus=None if joining else math.ceil(RESERVED_CPUS + ACTOR_CPUS * (os.cpu_count() or 1)),
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    if not joining:  # the processes of the cluster this call started, watched from outside
        global _reaper  # noqa: PLW0603 - one local cluster per driver process
        _reaper = watch(descendants(children(os.getpid()) - before))
    return True


_reaper: Reaper | None = None


def disconnect() -> None:
    """Shut down the cluster :func:`connect` started, and whatever of it outlives the shutdown."""
    global _reaper
    import ray

    try:
        ray.shutdown()
    finally:
        reaper, _reaper = _reaper, None
        if reaper is not None:
            reaper.close()


def cluster_cpus() -> float:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return float(resources.get("CPU", 0.0))


def actor_range(
    requested: tuple[int, int] | None, cpus: float, *, concurrency: int = CALLS_PER_ACTOR
) -> tuple[int, int]:
    """The (min, max) actor pool size for a cluster of ``cpus`` logical CPUs (the rule above)."""
    fits = math.floor((cpus - RESERVED_CPUS) / ACTOR_CPUS + 1e-9)
    if fits < 1:
        raise ValueError(
            f"the Ray cluster has {cpus:g} logical CPUs; a batch job needs at least "
            f"{RESERVED_CPUS + ACTOR_CPUS:g}: {ACTOR_CPUS:g} per routing actor and "
            f"{RESERVED_CPUS:g} for reading the input and cutting it into blocks"
        )
    if requested is None:
        wanted = math.ceil(concurrency / CALLS_PER_ACTOR)
        return min(wanted, fits), min(wanted, fits)
    low, high = requested
    return min(low, fits), min(high, fits)
