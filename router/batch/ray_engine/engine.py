"""``RayEngine``: the Ray engine as a value, its options checked when it is built; running it."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.batch.job import BatchJob
    from router.batch.stats import BatchSummary

__all__ = ["INSTALL_HINT", "RayEngine", "RayUnavailableError", "require_ray", "run_ray_batch"]

INSTALL_HINT = "pip install 'grounding-router[ray]'"


class RayUnavailableError(RuntimeError):
    """Ray Data is not installed; the message says how to install it."""


def require_ray() -> None:
    """Raise :class:`RayUnavailableError` unless Ray Data can be imported."""
    try:
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise RayUnavailableError(
            f"the Ray engine needs Ray Data, which is not installed: {INSTALL_HINT}"
        ) from exc


def run_ray_batch(source: str, output: str, **options: Any) -> BatchSummary:
    """Run a batch job on Ray (see :func:`router.batch.ray_engine.job.run_job`)."""
    require_ray()
    from router.batch.ray_engine.job import run_job

    return run_job(source, output, **options)


@dataclass(frozen=True, slots=True)
class RayEngine:
    """Run the job on a Ray cluster (the ``ray`` extra); the options only this engine knows.

        ``address`` names the cluster to join (``"auto"``: the one started on this machine;
        default: ``RAY_ADDRESS``, else a local cluster for the run), ``actors`` the (min, max) size
        of the routing actor pool (default: 1 to what the cluster holds), ``checkpoint`` where Ray
        Data keeps the ids of committed rows (default: beside the output), ``commit_s`` how long a
    finished row may wait before its shard and checkpoint are written (what a killed driver may
    lose; shorter means more, smaller shards). The job's paths may then
        be object-store URIs, and its output a directory of shards unless it ends in ``.jsonl``.
        Each actor builds its router from the job's settings.
    """

    address: str | None = None
    actors: tuple[int, int] | None = None
    checkpoint: str | None = None
    commit_s: float = 5.0

    def __post_init__(self) -> None:
        if self.address is not None and not self.address.strip():
            raise ValueError("address must name a cluster (or be None for a local one)")
        if self.actors is not None:
            low, high = self.actors
            if not 1 <= low <= high:
                raise ValueError(
                    f"actors must be (min, max) with 1 <= min <= max, not {self.actors}"
                )
        if self.checkpoint is not None and not self.checkpoint.strip():
            raise ValueError("checkpoint must name a place (or be None for the default)")
        if not self.commit_s > 0:
            raise ValueError(f"commit_s must be positive, not {self.commit_s}")

    async def run(self, job: BatchJob) -> BatchSummary:
        """Run ``job`` on Ray in a thread; cancelling the call leaves the job behind."""
        from router.settings import RouterSettings

        abandon = threading.Event()
        try:
            return await asyncio.to_thread(
                run_ray_batch,
                str(job.source),
                str(job.output),
                settings=job.settings or RouterSettings(),
                concurrency=job.concurrency,
                max_rps=job.max_rps,
                resume=job.resume,
                overwrite=job.overwrite,
                should_stop=job.stop.is_set,
                should_abandon=abandon.is_set,
                grace_s=job.grace_s,
                on_progress=job.on_progress,
                address=self.address,
                actors=self.actors,
                checkpoint=self.checkpoint,
                commit_s=self.commit_s,
            )
        except asyncio.CancelledError:
            abandon.set()  # the job's thread returns at its next look, leaving the job behind
            raise

    async def release_loop(self) -> None:
        """Nothing of a Ray job belongs to the caller's event loop."""
