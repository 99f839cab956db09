"""Run a JSONL file of requests at volume: REQUIRED-grounding batch jobs.

Every input line produces exactly one output row, ``{request_id, ok, response | error}`` (a line
asking several providers: ``{request_id, ok, fanout}``, :mod:`router.batch.fanout_lines`), written
whole and flushed as it arrives (see :mod:`router.batch.output`). Failures of any kind become
error rows, never a crash. ``resume=True`` skips the ids already in the output, so a killed run,
resumed, ends with every request_id exactly once. Setting ``stop`` (the CLI does on SIGINT/SIGTERM)
stops feeding new requests, gives those in flight ``grace_s`` to finish, cancels the rest (they
get no row, so a resume runs them) and returns a summary marked ``interrupted``.

Who routes is a value: ``engine=LocalEngine(workers=...)`` (this machine, the default) or
``engine=RayEngine(address=..., actors=..., checkpoint=...)`` (a Ray cluster); each holds and
checks the options only it understands. The keywords that named them before (``engine="ray"``,
``workers``, ``router``, ``tracer_provider``, ``worker_setup``, ``ray_address``, ``actors``,
``checkpoint``) still work for one release, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

from router.batch.job import BatchEngine, BatchJob, ProgressCallback
from router.batch.local_engine import LocalEngine
from router.batch.output import OutputWriteError
from router.batch.ray_engine import RayEngine
from router.batch.stats import BatchStats, BatchSummary
from router.settings import RouterSettings
from router.unified_llm_adapter import UnifiedLLMAdapter

__all__ = [
    "BatchStats",
    "BatchSummary",
    "LocalEngine",
    "OutputWriteError",
    "ProgressCallback",
    "RayEngine",
    "arun_batch",
    "run_batch",
]

IN_PROCESS = LocalEngine()
"""The default engine: every request routed in the calling process."""

EngineName = Literal["local", "ray"]


class LegacyEngineOptions(TypedDict, total=False):
    """The engine options ``arun_batch`` took as keywords before the engines were values."""

    router: UnifiedLLMAdapter | None
    workers: int
    tracer_provider: Any | None
    worker_setup: Callable[[], None] | None
    ray_address: str | None
    actors: tuple[int, int] | None
    checkpoint: str | None


_LOCAL_OPTIONS = ("router", "workers", "tracer_provider", "worker_setup")
_RAY_OPTIONS = {"ray_address": "address", "actors": "actors", "checkpoint": "checkpoint"}


def run_batch(
    input_path: str | Path,
    output_path: str | Path,
    *,
    engine: BatchEngine | EngineName = IN_PROCESS,
    **options: Any,
) -> BatchSummary:
    """Run a batch to completion in a new event loop; see :func:`arun_batch` for the options.

    An injected router (``LocalEngine(router=...)``) stays usable afterwards; its async clients,
    which belong to the event loop this call creates and ends, are closed with that loop.
    """
    legacy = {
        name: options.pop(name) for name in (*_LOCAL_OPTIONS, *_RAY_OPTIONS) if name in options
    }
    value = _engine_value(engine, legacy, stacklevel=2)

    async def run_and_release() -> BatchSummary:
        try:
            return await arun_batch(input_path, output_path, engine=value, **options)
        finally:
            await value.release_loop()

    return asyncio.run(run_and_release())


async def arun_batch(
    input_path: str | Path,
    output_path: str | Path,
    *,
    settings: RouterSettings | None = None,
    concurrency: int = 16,
    max_rps: float | None = None,
    resume: bool = False,
    overwrite: bool = False,
    stop: asyncio.Event | None = None,
    grace_s: float = 10.0,
    on_progress: ProgressCallback | None = None,
    engine: BatchEngine | EngineName = IN_PROCESS,
    **legacy: Unpack[LegacyEngineOptions],
) -> BatchSummary:
    """Run every request of ``input_path`` and write one row per request to ``output_path``.

    ``concurrency`` lines are in flight at once (over all workers or actors); ``max_rps`` caps
    the rate of provider calls per vendor and credential, every attempt counted (retries,
    fallbacks and each vendor a line asks), over all workers or actors together.
    ``settings`` build the routers (default: an injected router's, else ``RouterSettings()``).
    An existing, non-empty output file is an error unless ``resume`` (continue it) or
    ``overwrite`` (start over) says what to do with it; an output that is not a regular file,
    or is the input itself, is refused (``ValueError``). Nothing is cut from the output before
    every check has passed and the input has been read through once. When the output cannot be
    written (disk full, read-only), the run stops with :class:`OutputWriteError`, every row
    written before it complete and kept for ``resume``.

    ``engine`` says who routes: :class:`LocalEngine` (the default; ``workers``, an injected
    ``router``, ``tracer_provider``, ``worker_setup``) or :class:`RayEngine` (``address``,
    ``actors``, ``checkpoint``); see each for its options.

    When tracing is on (:mod:`router.tracing`; the engine's ``tracer_provider`` or the global
    one), a local run is one ``grounding_router.batch`` span with every routed call under it.
    Worker processes continue that trace, each under a ``grounding_router.batch.worker`` span,
    when they have a tracer provider of their own: ``LocalEngine(worker_setup=...)``, or
    ``opentelemetry-instrument``.
    """
    value = _engine_value(engine, dict(legacy), stacklevel=2)
    job = BatchJob(
        source=input_path,
        output=output_path,
        settings=settings,
        concurrency=concurrency,
        max_rps=max_rps,
        resume=resume,
        overwrite=overwrite,
        stop=stop or asyncio.Event(),
        grace_s=grace_s,
        on_progress=on_progress,
    )
    return await value.run(job)


def _engine_value(
    engine: BatchEngine | EngineName, legacy: dict[str, Any], *, stacklevel: int
) -> BatchEngine:
    """The engine to run: ``engine`` itself, or one built from the deprecated keywords."""
    if not isinstance(engine, str) and not legacy:
        return engine
    if engine is IN_PROCESS:
        engine = "local"  # the default, with the old keywords saying what to run
    elif not isinstance(engine, str):
        raise TypeError(
            f"{', '.join(sorted(legacy))}: give these to the engine value, not to run_batch"
        )
    warnings.warn(
        "run_batch's engine keywords are deprecated: pass engine=LocalEngine(workers=..., "
        "router=...) or engine=RayEngine(address=..., actors=..., checkpoint=...) instead",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )
    local = {name: value for name, value in legacy.items() if name in _LOCAL_OPTIONS}
    ray = {_RAY_OPTIONS[name]: value for name, value in legacy.items() if name in _RAY_OPTIONS}
    if engine == "ray":
        workers = local.pop("workers", 1)
        if workers > 1 or any(value is not None for value in local.values()):
            raise ValueError(
                "engine='ray' builds a router on each actor: pass settings, not router, workers, "
                "tracer_provider or worker_setup"
            )
        return RayEngine(**ray)
    if engine != "local":
        raise ValueError(f"unknown engine {engine!r}: use 'local' or 'ray'")
    if any(value is not None for value in ray.values()):
        raise ValueError("ray_address, actors and checkpoint apply to engine='ray' only")
    return LocalEngine(**local)
