"""Batch runs spread over worker processes, each with its own event loop and SDK clients.

The SDK clients spend a few milliseconds of CPU on every call, so one process tops out long before
the providers do. With ``workers=N`` the parent streams the input into a bounded task queue, N
spawned workers route requests and send back finished rows, and the parent stays the only writer
of the output file: the no-loss and exactly-once guarantees are those of a single-process run.

Each worker begins with :func:`.lifecycle.enter_worker`: it logs like the parent, ignores SIGINT
(the parent coordinates stops), and exits the moment the parent is gone, whatever it is doing
then: nobody could take its rows, and a resumed run will redo what it had in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Container
from dataclasses import dataclass, field, replace
from multiprocessing.synchronize import Event as ProcessEvent
from typing import Any

from router.batch.fanout_lines import decode_request, encode_request, request_row
from router.batch.input import BatchInput, BatchItem
from router.batch.limits import SharedSchedule
from router.batch.local_engine.lifecycle import WorkerStart, enter_worker
from router.batch.output import ResultWriter, error_row
from router.batch.stats import BatchStats, RowFacts, row_facts
from router.errors import RouterError
from router.logging import get_logger
from router.settings import RouterSettings, pool_entry_settings
from router.tracing import Tracing, attached_context, force_flush

__all__ = ["WorkerPool"]

log = get_logger(__name__)

_POLL_S = 0.2
# Requests go to workers in batches of up to this many, and rows come back batched too (see
# _RowBatcher): a message per request would cost a process hop each (pickling, a pipe write, a
# thread wake-up on either side), a fair share of what routing the request costs. A worker holds
# at most two batches beyond what it runs, so that near the end of the input no worker sits on
# requests another one could be running.
_TASK_BATCH = 8

# Work for a worker: (input line number, request as JSON, whether it is a fan-out); None ends
# its input.
_Task = tuple[int, str, bool]
# Messages from workers: finished rows (JSON line, facts), or a worker saying it has stopped.
_Row = tuple[str, RowFacts]
# A worker's span under the batch span; the calls it routes are its children (router.tracing).
WORKER_SPAN = "grounding_router.batch.worker"


@dataclass(frozen=True)
class _WorkerConfig:
    start: WorkerStart
    settings: RouterSettings
    concurrency: int
    max_rps: float | None
    # Where every worker takes its turns: one limit per key for the whole pool.
    schedule: SharedSchedule
    batch: int
    # Run first in each worker (e.g. to configure a tracer provider); must be picklable.
    setup: Callable[[], None] | None = None
    # The parent's trace context (W3C headers), so the workers' spans continue its batch trace.
    trace_context: dict[str, str] = field(default_factory=dict)


class WorkerPool:
    """Runs one batch over ``workers`` processes; the calling thread writes every row."""

    def __init__(
        self,
        *,
        workers: int,
        settings: RouterSettings,
        concurrency: int,
        max_rps: float | None,
        setup: Callable[[], None] | None = None,
        trace_context: dict[str, str] | None = None,
    ) -> None:
        self._context = multiprocessing.get_context("spawn")
        per_worker = max(1, -(-concurrency // workers))
        # Small enough that a batch never holds more than half of what a worker may run.
        batch = max(1, min(_TASK_BATCH, per_worker // 2))
        self._config = _WorkerConfig(
            start=WorkerStart(),
            settings=settings,
            concurrency=per_worker,
            max_rps=max_rps,
            schedule=SharedSchedule.for_settings(settings, self._context),
            batch=batch,
            setup=setup,
            trace_context=dict(trace_context or {}),
        )
        self._workers = workers
        self._tasks: Any = self._context.Queue(maxsize=max(2, workers * per_worker * 2 // batch))
        self._results: Any = self._context.Queue()
        self._stop = self._context.Event()
        self._processes: list[Any] = []

    def granted(self) -> dict[str, int]:
        """Rate-limit turns the workers were given, per key: one per provider call."""
        return self._config.schedule.granted()

    def run(
        self,
        requests: BatchInput,
        done_ids: Container[str],
        writer: ResultWriter,
        stats: BatchStats,
        *,
        should_stop: Callable[[], bool],
        grace_s: float,
        on_row: Callable[[], None],
    ) -> bool:
        """Run to the end of the input, or until ``should_stop``; True when interrupted."""
        for number in range(self._workers):
            process = self._context.Process(
                target=_worker_main,
                args=(number, self._config, self._tasks, self._results, self._stop),
                name=f"grounding-router-batch-{number}",
                daemon=True,
            )
            process.start()
            self._processes.append(process)
        feeder = _Feeder(
            requests,
            done_ids,
            self._tasks,
            workers=self._workers,
            batch=self._config.batch,
            writer=writer,
            stats=stats,
            on_row=on_row,
        )
        feeder.start()
        try:
            return self._collect(
                feeder, writer, stats, should_stop=should_stop, grace_s=grace_s, on_row=on_row
            )
        finally:
            feeder.halt()
            self._shutdown()

    def _collect(
        self,
        feeder: _Feeder,
        writer: ResultWriter,
        stats: BatchStats,
        *,
        should_stop: Callable[[], bool],
        grace_s: float,
        on_row: Callable[[], None],
    ) -> bool:
        finished: set[int] = set()
        deadline: float | None = None
        while len(finished) < self._workers:
            if feeder.failure is not None:
                raise feeder.failure  # an error row it could not write, or a bug
            if deadline is None and should_stop():
                log.warning("batch_stopping", workers=self._workers, grace_s=grace_s)
                feeder.halt()
                self._stop.set()
                deadline = time.monotonic() + grace_s
            if deadline is not None and time.monotonic() > deadline:
                return True
            try:
                message = self._results.get(timeout=_POLL_S)
            except queue.Empty:
                if self._lost_worker(finished):
                    log.error("batch_worker_died", exit_codes=self._exit_codes())
                    return True
                continue
            if message[0] == "done":
                finished.add(message[1])
                continue
            with feeder.write_lock:
                for line, facts in message[1]:
                    writer.write_line(line)
                    stats.record(facts)
                    on_row()
        return deadline is not None or not feeder.exhausted

    def _lost_worker(self, finished: set[int]) -> bool:
        return any(
            not process.is_alive() and number not in finished
            for number, process in enumerate(self._processes)
        )

    def _exit_codes(self) -> list[int | None]:
        return [process.exitcode for process in self._processes]

    def _shutdown(self) -> None:
        self._stop.set()
        for process in self._processes:
            process.join(timeout=2.0)
            if process.is_alive():
                process.terminate()
                process.join(timeout=2.0)
        for channel in (self._tasks, self._results):
            channel.cancel_join_thread()
            channel.close()


class _Feeder(threading.Thread):
    """Reads the input in the parent and queues work; bad lines become error rows at once."""

    def __init__(
        self,
        requests: BatchInput,
        done_ids: Container[str],
        tasks: Any,
        *,
        workers: int,
        batch: int,
        writer: ResultWriter,
        stats: BatchStats,
        on_row: Callable[[], None],
    ) -> None:
        super().__init__(name="grounding-router-batch-feeder", daemon=True)
        self._requests = requests
        self._done_ids = done_ids
        self._tasks = tasks
        self._workers = workers
        self._batch = batch
        self._writer = writer
        self._stats = stats
        self._on_row = on_row
        self._halted = threading.Event()
        self.write_lock = threading.Lock()
        self.exhausted = False
        self.failure: BaseException | None = None

    def halt(self) -> None:
        self._halted.set()

    def run(self) -> None:
        try:
            self._feed()
        except BaseException as exc:  # the collector raises it: a silent death would hang the run
            self.failure = exc
            self._halted.set()

    def _feed(self) -> None:
        batch: list[_Task] = []
        for item in self._requests:
            if item.request_id in self._done_ids:
                self._stats.skipped += 1
                continue
            if item.request is None:
                self._write_error(item)
                continue
            # As JSON: smaller and quicker to send and re-validate than a pickled model.
            batch.append((item.line, *encode_request(item.request)))
            if len(batch) == self._batch:
                if not self._put(batch):
                    return
                batch = []
        if batch and not self._put(batch):
            return
        self.exhausted = True
        for _ in range(self._workers):
            if not self._put(None):
                return

    def _put(self, task: list[_Task] | None) -> bool:
        while not self._halted.is_set():
            try:
                self._tasks.put(task, timeout=_POLL_S)
            except queue.Full:
                continue
            return True
        return False

    def _write_error(self, item: BatchItem) -> None:
        error = item.error or RouterError("the line produced no request", reason="unexpected_error")
        with self.write_lock:
            self._writer.write(error_row(item.line, item.request_id, error))
            self._stats.record(row_facts(error=error))
            self._on_row()


def _worker_main(
    number: int, config: _WorkerConfig, tasks: Any, results: Any, stop: ProcessEvent
) -> None:
    """Entry point of a worker process."""
    enter_worker(config.start, number)
    # Worker i routes with entry i of each credential pool: its own keys, its own limits.
    config = replace(config, settings=pool_entry_settings(config.settings, number))
    if config.setup is not None:
        config.setup()
    with (
        contextlib.suppress(KeyboardInterrupt),
        attached_context(config.trace_context),
        Tracing(config.settings).operation(WORKER_SPAN, {"grounding_router.batch.worker": number}),
    ):
        asyncio.run(_worker_loop(config, tasks, results, stop))
    force_flush()  # os._exit below skips the exit hooks that would export the spans
    results.put(("done", number))
    # Everything is closed and, once the queue has flushed, sent: skip the interpreter's
    # teardown, which would keep the parent waiting about 0.2 s per worker for nothing, the way
    # multiprocessing ends its forked children.
    results.close()
    results.join_thread()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


async def _worker_loop(config: _WorkerConfig, tasks: Any, results: Any, stop: ProcessEvent) -> None:
    from router.batch.limits import RateLimits, limited
    from router.router import UnifiedLLMAdapter

    loop = asyncio.get_running_loop()
    # One batch queued here, one more waiting in pull(): the rest stays with the parent.
    local: asyncio.Queue[_Task | None] = asyncio.Queue(maxsize=config.batch)
    limits = RateLimits(config.max_rps, schedule=config.schedule)
    rows = _RowBatcher(results, loop)

    async def queue_all(batch: list[_Task | None]) -> None:
        for task in batch:
            await local.put(task)

    def pull() -> None:
        """Move tasks from the process queue to the event loop, until the input or a stop ends."""
        while not stop.is_set():
            try:
                batch = tasks.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            if batch is None:
                break
            asyncio.run_coroutine_threadsafe(queue_all(batch), loop).result()
        ends: list[_Task | None] = [None] * config.concurrency
        asyncio.run_coroutine_threadsafe(queue_all(ends), loop).result()

    async def consume(router: UnifiedLLMAdapter) -> None:
        while (task := await local.get()) is not None:
            if stop.is_set():
                continue
            line, request_json, fanout = task
            request = decode_request(request_json, fanout)
            rows.add(await request_row(router, line, request))

    async with UnifiedLLMAdapter(config.settings) as built:
        router = limited(built, limits)  # every attempt waits for its turn, retries included
        puller = loop.run_in_executor(None, pull)
        try:
            await asyncio.gather(*(consume(router) for _ in range(config.concurrency)))
            await puller
        finally:
            rows.flush()


class _RowBatcher:
    """Sends the rows finished within one turn of the event loop as one message.

    Under load many replies are read in the same turn, so they share the hop to the parent; a
    lone row still leaves at the end of its turn, never waiting for company.
    """

    def __init__(self, results: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._results = results
        self._loop = loop
        self._pending: list[_Row] = []

    def add(self, row: _Row) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(row)

    def flush(self) -> None:
        if self._pending:
            self._results.put(("rows", self._pending))
            self._pending = []
