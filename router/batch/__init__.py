"""The JSONL batch runner: REQUIRED-grounding jobs at volume, one output row per input line.

``run_batch`` / ``arun_batch`` (:mod:`router.batch.runner`) read requests (:mod:`.input`), have
an engine route them under per-vendor rate limits (:mod:`.limits`), write one row each
(:mod:`.output`) and count outcomes (:mod:`.stats`). The engine is a value (:mod:`.job`):
``LocalEngine`` (:mod:`.local_engine`: this process, or worker processes) or ``RayEngine``
(:mod:`.ray_engine`: a Ray cluster).
Importing this package loads none of them: the names below are imported on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.batch.job import ProgressCallback
    from router.batch.local_engine import LocalEngine
    from router.batch.ray_engine import RayEngine
    from router.batch.runner import arun_batch, run_batch
    from router.batch.stats import BatchStats, BatchSummary

__all__ = [
    "BatchStats",
    "BatchSummary",
    "LocalEngine",
    "ProgressCallback",
    "RayEngine",
    "arun_batch",
    "run_batch",
]

_EXPORTS: dict[str, str] = {
    "BatchStats": "router.batch.stats",
    "BatchSummary": "router.batch.stats",
    "LocalEngine": "router.batch.local_engine",
    "ProgressCallback": "router.batch.job",
    "RayEngine": "router.batch.ray_engine",
    "arun_batch": "router.batch.runner",
    "run_batch": "router.batch.runner",
}


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'router.batch' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
