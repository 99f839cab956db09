"""The JSONL batch runner: REQUIRED-grounding jobs at volume, one output row per input line.

``run_batch`` / ``arun_batch`` (:mod:`router.batch.runner`) read requests (:mod:`.input`), route
them in this process or in worker processes (:mod:`.workers`) under per-vendor rate limits
(:mod:`.limits`), write one row each (:mod:`.output`) and count outcomes (:mod:`.stats`).
Importing this package loads none of them: the names below are imported on first access.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.batch.runner import ProgressCallback, arun_batch, run_batch
    from router.batch.stats import BatchStats, BatchSummary

__all__ = ["BatchStats", "BatchSummary", "ProgressCallback", "arun_batch", "run_batch"]

_EXPORTS: dict[str, str] = {
    "BatchStats": "router.batch.stats",
    "BatchSummary": "router.batch.stats",
    "ProgressCallback": "router.batch.runner",
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
