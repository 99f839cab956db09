"""What a batch run is, whatever engine runs it, and what an engine must do with it.

A :class:`BatchJob` holds the options every engine reads (the files, the pace, resume or
overwrite, the stop and its grace time, the progress callback); an engine value
(:class:`router.batch.local_engine.LocalEngine`, :class:`router.batch.ray_engine.RayEngine`)
holds the options only it understands, checked when the value is built, and runs the job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from router.batch.stats import BatchStats, BatchSummary
    from router.settings import RouterSettings

__all__ = ["BatchEngine", "BatchJob", "ProgressCallback"]

ProgressCallback = Callable[["BatchStats"], None]


@dataclass(frozen=True, slots=True)
class BatchJob:
    """The engine-independent options of one run (see ``arun_batch`` for each)."""

    source: str | Path
    output: str | Path
    settings: RouterSettings | None
    concurrency: int
    max_rps: float | None
    resume: bool
    overwrite: bool
    stop: asyncio.Event
    grace_s: float
    on_progress: ProgressCallback | None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {self.concurrency}")
        if self.max_rps is not None and self.max_rps <= 0:
            raise ValueError(f"max_rps must be positive, not {self.max_rps}")


class BatchEngine(Protocol):
    """Runs a :class:`BatchJob` to its end (or its stop) and sums it up."""

    async def run(self, job: BatchJob) -> BatchSummary:
        """Write one row per request of ``job.source`` to ``job.output``."""
        ...

    async def release_loop(self) -> None:
        """Close what the engine holds that belongs to the running event loop, which ends next."""
        ...
