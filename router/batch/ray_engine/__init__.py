"""The Ray Data engine of the batch runner: the same rows, routed on a Ray cluster.

``run_batch(..., engine=RayEngine(...))`` (:mod:`.engine`) and ``grounding-router batch --engine
ray`` read the input with a Ray read task, route it on an autoscaling pool of actors (one router
each), write the rows as JSONL shards with Ray write tasks, and resume from Ray Data's row-level
checkpoint keyed by ``request_id``. Ray is an optional extra (``pip install
'grounding-router[ray]'``): nothing here imports it until a job starts, and
:func:`run_ray_batch` raises :class:`RayUnavailableError` naming the extra when it is missing.

What is guaranteed: every request_id of the input ends up in exactly one row of the output, over
any number of runs killed at any point and run again with ``resume``. Ray Data's checkpoint
commits a shard's ids in two phases, so a shard from a killed write is deleted on the next run
before the ids are read; the merge into one file keeps the first row of an id, a guard for a
write task that outlived its job. What is not: a provider call made for a row whose shard was
not committed (the run or a node died first) is made again by the run that writes the row.
"""

from __future__ import annotations

from router.batch.ray_engine.engine import (
    INSTALL_HINT,
    RayEngine,
    RayUnavailableError,
    run_ray_batch,
)

__all__ = ["INSTALL_HINT", "RayEngine", "RayUnavailableError", "run_ray_batch"]
