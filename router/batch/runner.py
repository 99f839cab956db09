"""Run a JSONL file of requests at volume: REQUIRED-grounding batch jobs.

Every input line produces exactly one output row, ``{request_id, ok, response | error}`` (a line
asking several providers: ``{request_id, ok, fanout}``, :mod:`router.batch.fanout_lines`), written
whole and flushed as it arrives (see :mod:`router.batch.output`). Failures of any kind become
error rows, never a crash. The input is streamed through a bounded queue, so memory stays flat
however long the file. ``resume=True`` skips the ids already in the output, so a killed run,
resumed, ends with every request_id exactly once. Setting ``stop`` (the CLI does on SIGINT/SIGTERM)
stops feeding new requests, gives those in flight ``grace_s`` to finish, cancels the rest (they
get no row, so a resume runs them) and returns a summary marked ``interrupted``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Container
from pathlib import Path
from typing import Any, Literal

from router.batch.fanout_lines import request_row, request_vendors
from router.batch.input import BatchInput, BatchItem
from router.batch.limits import RateLimits
from router.batch.output import (
    OutputWriteError,
    ResultWriter,
    check_output_path,
    error_row,
    existing_request_ids,
)
from router.batch.seen_ids import SeenIds
from router.batch.stats import BatchStats, BatchSummary
from router.errors import RouterError
from router.logging import get_logger
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from router.tracing import Tracing, inject_context

__all__ = [
    "BatchStats",
    "BatchSummary",
    "OutputWriteError",
    "ProgressCallback",
    "arun_batch",
    "run_batch",
]

ProgressCallback = Callable[[BatchStats], None]
# The span over a whole run; each routed call of the run is under it (router.tracing).
BATCH_SPAN = "grounding_router.batch"

log = get_logger(__name__)


def run_batch(input_path: str | Path, output_path: str | Path, **options: Any) -> BatchSummary:
    """Run a batch to completion in a new event loop; see :func:`arun_batch` for the options.

    An injected ``router`` stays usable afterwards; its async clients, which belong to the event
    loop this call creates and ends, are closed with that loop.
    """

    async def run_and_release() -> BatchSummary:
        try:
            return await arun_batch(input_path, output_path, **options)
        finally:
            router = options.get("router")
            if router is not None:
                await router.aclose()

    return asyncio.run(run_and_release())


async def arun_batch(
    input_path: str | Path,
    output_path: str | Path,
    *,
    router: UnifiedLLMAdapter | None = None,
    settings: RouterSettings | None = None,
    concurrency: int = 16,
    max_rps: float | None = None,
    resume: bool = False,
    overwrite: bool = False,
    stop: asyncio.Event | None = None,
    grace_s: float = 10.0,
    on_progress: ProgressCallback | None = None,
    workers: int = 1,
    tracer_provider: Any | None = None,
    worker_setup: Callable[[], None] | None = None,
    engine: Literal["local", "ray"] = "local",
    ray_address: str | None = None,
    actors: tuple[int, int] | None = None,
    checkpoint: str | None = None,
) -> BatchSummary:
    """Run every request of ``input_path`` and write one row per request to ``output_path``.

    ``concurrency`` lines are in flight at once (over all workers); ``max_rps`` caps the
    request rate per vendor (a line asking several vendors spends one request of each).
    ``workers`` > 1 spreads the calls over that many processes, each with its own router built
    from ``settings`` (an injected ``router`` cannot cross processes).
    Workers are spawned, and a spawned process re-imports the calling script: a script that
    uses ``workers`` must call ``run_batch`` under ``if __name__ == "__main__":``.
    An existing, non-empty output file is an error unless ``resume`` (continue it) or
    ``overwrite`` (start over) says what to do with it; an output that is not a regular file,
    or is the input itself, is refused (``ValueError``). Nothing is cut from the output before
    every check has passed and the input has been read through once. When the output cannot be
    written (disk full, read-only), the run stops with :class:`OutputWriteError`, every row
    written before it complete and kept for ``resume``.

    When tracing is on (:mod:`router.tracing`; ``tracer_provider`` or the global one), the run
    is one ``grounding_router.batch`` span with every routed call under it. Worker processes
    continue that trace, each under a ``grounding_router.batch.worker`` span, when they have a
    tracer provider of their own: ``worker_setup``, a picklable function run at the start of
    each worker (configure the OpenTelemetry SDK there), or ``opentelemetry-instrument``.

    ``engine="ray"`` runs the job on a Ray cluster instead (:mod:`router.batch.ray_engine`; the
    ``ray`` extra): ``ray_address`` names the cluster to join (``"auto"``: the one started on
    this machine; default: a local cluster for the run), ``actors`` the (min, max) size of the
    routing actor pool, ``checkpoint`` where Ray Data keeps the ids of committed rows. Paths may
    then be object-store URIs, and ``output_path`` a directory of shards unless it ends in
    ``.jsonl``. The Ray engine takes no ``router``, ``workers``, ``tracer_provider`` or
    ``worker_setup``: each actor builds its router from ``settings``.
    """
    _check_options(concurrency=concurrency, workers=workers, router=router)
    if engine == "ray":
        return await _run_on_ray(
            str(input_path),
            str(output_path),
            settings=settings or RouterSettings(),
            concurrency=concurrency,
            max_rps=max_rps,
            resume=resume,
            overwrite=overwrite,
            stop=stop or asyncio.Event(),
            grace_s=grace_s,
            on_progress=on_progress,
            address=ray_address,
            actors=actors,
            checkpoint=checkpoint,
            local_only=(router, workers > 1, tracer_provider, worker_setup),
        )
    if engine != "local":
        raise ValueError(f"unknown engine {engine!r}: use 'local' or 'ray'")
    if ray_address is not None or actors is not None or checkpoint is not None:
        raise ValueError("ray_address, actors and checkpoint apply to engine='ray' only")
    source, target = Path(input_path), Path(output_path)
    limiters = RateLimits(max_rps)
    _check_paths(source, target, resume=resume, overwrite=overwrite)
    done_ids, keep_bytes = existing_request_ids(target) if resume else (SeenIds(), 0)
    with done_ids:  # kept on disk (router.batch.seen_ids) until the run ends
        requests = BatchInput(source)
        stats = BatchStats(total=requests.total)
        stop = stop or asyncio.Event()
        settings = settings or (router.settings if router is not None else RouterSettings())
        tracing = router.tracing if router is not None else Tracing(settings, tracer_provider)
        writer = ResultWriter(target, keep_bytes=keep_bytes)
        started = time.perf_counter()
        with tracing.operation(BATCH_SPAN, _batch_attributes(stats, workers, concurrency)) as span:
            try:
                if workers > 1:
                    from router.batch.workers import WorkerPool

                    pool = WorkerPool(
                        workers=workers,
                        settings=settings,
                        concurrency=concurrency,
                        max_rps=max_rps,
                        setup=worker_setup,
                        trace_context=inject_context(),
                    )
                    interrupted = await asyncio.to_thread(  # the thread gets this context
                        pool.run,
                        requests,
                        done_ids,
                        writer,
                        stats,
                        should_stop=stop.is_set,
                        grace_s=grace_s,
                        on_row=lambda: on_progress(stats) if on_progress else None,
                    )
                else:
                    run = _BatchRun(
                        router=router
                        or UnifiedLLMAdapter(settings, tracer_provider=tracer_provider),
                        writer=writer,
                        stats=stats,
                        limiters=limiters,
                        stop=stop,
                        on_progress=on_progress,
                    )
                    try:
                        interrupted = await run.execute(requests, done_ids, concurrency, grace_s)
                    finally:
                        if router is None:
                            await run.router.aclose()
            finally:
                writer.close()
            summary = stats.summary(
                elapsed_s=time.perf_counter() - started, interrupted=interrupted
            )
            span.set(_summary_attributes(summary))
    log.info("batch_finished", done=summary.done, skipped=summary.skipped, **summary.outcomes)
    return summary


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


async def _run_on_ray(
    source: str,
    output: str,
    *,
    stop: asyncio.Event,
    local_only: tuple[Any, ...],
    **options: Any,
) -> BatchSummary:
    if any(local_only):
        raise ValueError(
            "engine='ray' builds a router on each actor: pass settings, not router, workers, "
            "tracer_provider or worker_setup"
        )
    from router.batch.ray_engine import run_ray_batch

    abandon = threading.Event()
    try:
        return await asyncio.to_thread(
            run_ray_batch,
            source,
            output,
            should_stop=stop.is_set,
            should_abandon=abandon.is_set,
            **options,
        )
    except asyncio.CancelledError:
        abandon.set()  # the job's thread returns at its next look, leaving the job behind
        raise


def _check_options(*, concurrency: int, workers: int, router: UnifiedLLMAdapter | None) -> None:
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if workers > 1 and router is not None:
        raise ValueError("workers > 1 builds a router in each process: pass settings, not router")


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


class _BatchRun:
    """The tasks of one run: a producer reading the input, consumers routing, one writer."""

    def __init__(
        self,
        *,
        router: UnifiedLLMAdapter,
        writer: ResultWriter,
        stats: BatchStats,
        limiters: RateLimits,
        stop: asyncio.Event,
        on_progress: ProgressCallback | None,
    ) -> None:
        self.router = router
        self.writer = writer
        self.stats = stats
        self.limiters = limiters
        self.stop = stop
        self.on_progress = on_progress
        self.input_exhausted = False
        self.abandoned = 0

    async def execute(
        self, requests: BatchInput, done_ids: Container[str], concurrency: int, grace_s: float
    ) -> bool:
        """Run to the end of the input, or until ``stop``; return True when interrupted."""
        queue: asyncio.Queue[BatchItem | None] = asyncio.Queue(maxsize=concurrency * 2)
        producer = asyncio.create_task(self._produce(requests, done_ids, queue, concurrency))
        consumers = [asyncio.create_task(self._consume(queue)) for _ in range(concurrency)]
        tasks = [producer, *consumers]
        work = asyncio.gather(*tasks)
        stopped = asyncio.create_task(self.stop.wait())
        either: set[asyncio.Future[Any]] = {work, stopped}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if work.done():
            stopped.cancel()
            try:
                work.result()
            except Exception:
                # The output cannot be written (or the runner has a bug): the other tasks
                # would wait forever on a queue nobody serves any more, so they end here too.
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise
            return not self.input_exhausted or self.abandoned > 0
        log.warning(
            "batch_stopping", in_flight=sum(not c.done() for c in consumers), grace_s=grace_s
        )
        producer.cancel()
        await asyncio.gather(producer, return_exceptions=True)
        # What is queued but not started gets no row (a resume runs it); the consumers finish
        # what they hold and then find their end markers, there being room for them now.
        while not queue.empty():
            if queue.get_nowait() is not None:
                self.abandoned += 1
        for _ in consumers:
            queue.put_nowait(None)
        _, pending = await asyncio.wait(consumers, timeout=grace_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*consumers, producer, return_exceptions=True)
        if self.writer.failure is not None:
            raise self.writer.failure  # a row finished in the grace period found no room
        return True

    async def _produce(
        self,
        requests: BatchInput,
        done_ids: Container[str],
        queue: asyncio.Queue[BatchItem | None],
        concurrency: int,
    ) -> None:
        for item in requests:
            if item.request_id in done_ids:
                self.stats.skipped += 1
                continue
            if item.error is not None or item.request is None:
                self._record(item, error=item.error)
                continue
            await queue.put(item)
            if self.stop.is_set():
                break
        else:
            self.input_exhausted = True
        # Not in a `finally`: a producer that failed or was cancelled must not wait to hand end
        # markers to consumers that may be gone (the run hung there when the disk filled).
        for _ in range(concurrency):
            await queue.put(None)

    async def _consume(self, queue: asyncio.Queue[BatchItem | None]) -> None:
        while (item := await queue.get()) is not None:
            if self.stop.is_set():
                self.abandoned += 1  # no row: a resumed run will do it
                continue
            request = item.request
            assert request is not None  # the producer only queues parsed requests
            async with self.limiters.for_vendors(request_vendors(request)):
                text, facts = await request_row(self.router, item.line, request)
            self.writer.write_line(text)
            self.stats.record(facts)
            self._progress()

    def _record(self, item: BatchItem, *, error: RouterError | None) -> None:
        failure = error or RouterError("the line produced no request", reason="unexpected_error")
        self.writer.write(error_row(item.line, item.request_id, failure))
        self.stats.record_error(failure)
        self._progress()

    def _progress(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.stats)
