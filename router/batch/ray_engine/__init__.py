"""The Ray Data engine of the batch runner: the same rows, routed on a Ray cluster.

``run_batch(..., engine=RayEngine(...))`` (:mod:`.engine`) and ``grounding-router batch --engine
ray`` read the input with a Ray read task, route it on a pool of actors (one router each) which
commit their rows as JSONL shards, each with a checkpoint file of its ids, within ``commit_s``
seconds of the rows finishing (:mod:`.commits`), and resume from those checkpoint files. Ray is
an optional extra (``pip install 'grounding-router[ray]'``): nothing here imports it until a job
starts, and :func:`run_ray_batch` raises :class:`RayUnavailableError` naming the extra when it is
missing.

What is guaranteed: every request_id of the input ends up in exactly one row of the output, over
any number of runs killed at any point and run again with ``resume``. A shard's ids are committed
in two phases, so a shard from a killed commit is deleted on the next run (or the block's retry)
before the ids are read; the merge into one file keeps the first row of an id, a guard for a
routing task that outlived its job. What is not: a provider call made for a row whose shard was
not committed (the run or a node died within ``commit_s`` of the row finishing) is made again by
the run that writes the row.
"""

from __future__ import annotations

from router.batch.ray_engine.engine import (
    INSTALL_HINT,
    RayEngine,
    RayUnavailableError,
    require_ray,
    run_ray_batch,
)

__all__ = ["INSTALL_HINT", "RayEngine", "RayUnavailableError", "require_ray", "run_ray_batch"]
