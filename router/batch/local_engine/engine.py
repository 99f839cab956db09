"""``LocalEngine``, and one local run: the checks on the files, resume, the writer, the batch
span, then the routing.

Both ways of the local engine share the run; they differ only in who routes: this process
(:class:`.in_process.InProcessRun`) or a pool of worker processes (:class:`.workers.WorkerPool`).
Nothing is cut from the output before every check has passed and the input has been read
through once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.batch.input import BatchInput
from router.batch.limits import RateLimits, limited
from router.batch.output import ResultWriter, check_output_path, existing_request_ids
from router.batch.seen_ids import SeenIds
from router.batch.stats import BatchStats, BatchSummary
from router.logging import get_logger
from router.settings import RouterSettings, pool_entry_settings
from router.tracing import Tracing, inject_context

if TYPE_CHECKING:
    from router.batch.job import BatchJob
    from router.unified_llm_adapter import UnifiedLLMAdapter

__all__ = ["BATCH_SPAN", "LocalEngine", "run_locally"]

# The span over a whole run; each routed call of the run is under it (router.tracing).
BATCH_SPAN = "grounding_router.batch"

log = get_logger(__name__)


@dataclass(frozen=True, slots=True)
class LocalEngine:
    """Run the job on this machine; the options only this engine understands.

    ``workers`` > 1 spreads the calls over that many processes, each with its own router built
    from the job's settings (so an injected ``router`` cannot go with it). Workers are spawned,
    and a spawned process re-imports the calling script: a script that uses ``workers`` must
    call ``run_batch`` under ``if __name__ == "__main__":``. ``router`` routes every request in
    this process (its settings are the job's default) and traces the run with its own tracing;
    without one, ``tracer_provider`` traces the run and the router built for it.
    ``worker_setup``, a picklable function, runs at the start of each worker (configure the
    OpenTelemetry SDK there, so that the workers' spans continue the run's trace).
    ``save_replies`` keeps each provider reply under that folder, per request id
    (:mod:`router.batch.saved_replies`); routing in this process only.
    """

    workers: int = 1
    router: UnifiedLLMAdapter | None = None
    tracer_provider: Any | None = None
    worker_setup: Callable[[], None] | None = None
    save_replies: Path | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, not {self.workers}")
        if self.workers > 1 and self.router is not None:
            raise ValueError(
                "workers > 1 builds a router in each process: pass settings, not router"
            )
        if self.workers > 1 and self.save_replies is not None:
            raise ValueError("save_replies keeps the replies of one process: use workers=1")

    async def run(self, job: BatchJob) -> BatchSummary:
        """Run ``job`` here (see :func:`run_locally`)."""
        return await run_locally(self, job)

    async def release_loop(self) -> None:
        """Close the injected router's async clients, which belong to the ending event loop."""
        if self.router is not None:
            await self.router.aclose()


async def run_locally(engine: LocalEngine, job: BatchJob) -> BatchSummary:
    """Run ``job`` on this machine as ``engine`` says; see ``arun_batch``."""
    source, target = Path(job.source), Path(job.output)
    _check_paths(source, target, resume=job.resume, overwrite=job.overwrite)
    done_ids, keep_bytes = existing_request_ids(target) if job.resume else (SeenIds(), 0)
    with done_ids:  # kept on disk (router.batch.seen_ids) until the run ends
        requests = BatchInput(source)
        stats = BatchStats(total=requests.total)
        router = engine.router
        settings = job.settings or (router.settings if router is not None else RouterSettings())
        tracing = (
            router.tracing if router is not None else Tracing(settings, engine.tracer_provider)
        )
        writer = ResultWriter(target, keep_bytes=keep_bytes)
        run = _LocalRun(engine, job, settings, requests, done_ids, writer, stats)
        started = time.perf_counter()
        attributes = _batch_attributes(stats, engine.workers, job.concurrency)
        with tracing.operation(BATCH_SPAN, attributes) as span:
            try:
                interrupted = await (_in_pool(run) if engine.workers > 1 else _in_process(run))
            finally:
                writer.close()
            summary = stats.summary(
                elapsed_s=time.perf_counter() - started, interrupted=interrupted
            )
            span.set(_summary_attributes(summary))
    log.info("batch_finished", done=summary.done, skipped=summary.skipped, **summary.outcomes)
    return summary


@dataclass(frozen=True, slots=True)
class _LocalRun:
    """The parts of one run, built once, that either way of routing takes."""

    engine: LocalEngine
    job: BatchJob
    settings: RouterSettings
    requests: BatchInput
    done_ids: Container[str]
    writer: ResultWriter
    stats: BatchStats


async def _in_process(run: _LocalRun) -> bool:
    from router.batch.local_engine.in_process import InProcessRun
    from router.batch.saved_replies import ReplySaver
    from router.unified_llm_adapter import UnifiedLLMAdapter

    engine, job = run.engine, run.job
    # One process routes as worker 0 would: the first entry of each credential pool.
    router = engine.router or UnifiedLLMAdapter(
        pool_entry_settings(run.settings, 0), tracer_provider=engine.tracer_provider
    )
    limits = RateLimits(job.max_rps)
    routing = InProcessRun(
        router=limited(router, limits),  # every attempt waits for its turn, retries included
        writer=run.writer,
        stats=run.stats,
        stop=job.stop,
        on_progress=job.on_progress,
        saver=ReplySaver(engine.save_replies) if engine.save_replies is not None else None,
    )
    try:
        return await routing.execute(run.requests, run.done_ids, job.concurrency, job.grace_s)
    finally:
        _log_granted(job.max_rps, dict(limits.granted))
        if engine.router is None:
            await router.aclose()


async def _in_pool(run: _LocalRun) -> bool:
    from router.batch.local_engine.workers import WorkerPool

    engine, job, stats = run.engine, run.job, run.stats
    pool = WorkerPool(
        workers=engine.workers,
        settings=run.settings,
        concurrency=job.concurrency,
        max_rps=job.max_rps,
        setup=engine.worker_setup,
        trace_context=inject_context(),
    )
    on_progress = job.on_progress
    try:
        return await asyncio.to_thread(  # the thread gets this context
            pool.run,
            run.requests,
            run.done_ids,
            run.writer,
            stats,
            should_stop=job.stop.is_set,
            grace_s=job.grace_s,
            on_row=lambda: on_progress(stats) if on_progress else None,
        )
    finally:
        _log_granted(job.max_rps, pool.granted())


def _log_granted(max_rps: float | None, granted: dict[str, int]) -> None:
    """With a rate limit, the turns given per key: one per provider call, retries included."""
    if max_rps is not None:
        log.info("batch_rate_limited", max_rps=max_rps, granted=granted)


def _batch_attributes(stats: BatchStats, workers: int, concurrency: int) -> dict[str, Any]:
    return {
        "grounding_router.batch.total": stats.total,
        "grounding_router.batch.workers": workers,
        "grounding_router.batch.concurrency": concurrency,
    }


def _summary_attributes(summary: BatchSummary) -> dict[str, Any]:
    """The run's counts, and its estimated cost when one currency priced it all."""
    attributes: dict[str, Any] = {
        "grounding_router.batch.done": summary.done,
        "grounding_router.batch.skipped": summary.skipped,
        "grounding_router.batch.interrupted": summary.interrupted,
        **{f"grounding_router.batch.outcome.{name}": n for name, n in summary.outcomes.items()},
    }
    if len(summary.cost.totals) == 1:
        (total,) = summary.cost.totals
        attributes["grounding_router.cost"] = total["total"]
        attributes["grounding_router.cost.currency"] = total["currency"]
    return attributes


def _check_paths(source: Path, target: Path, *, resume: bool, overwrite: bool) -> None:
    if not source.is_file():
        raise FileNotFoundError(f"input file not found: {source}")
    if resume and overwrite:
        raise ValueError("resume and overwrite contradict each other: choose one")
    check_output_path(source, target)
    if target.exists() and target.stat().st_size > 0 and not (resume or overwrite):
        raise FileExistsError(
            f"{target} already holds results: resume to continue it, or overwrite to start over"
        )
