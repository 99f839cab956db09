"""The local engine in one process: a producer reading the input, consumers routing, one writer.

The input is streamed through a bounded queue, so memory stays flat however long the file. When
``stop`` is set, no new request is fed, those in flight get ``grace_s`` to finish and the rest
are cancelled: they get no row, so a resumed run does them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Container
from contextlib import nullcontext
from typing import Any

from router.batch.fanout_lines import request_row
from router.batch.input import BatchInput, BatchItem
from router.batch.job import ProgressCallback
from router.batch.output import ResultWriter, error_row
from router.batch.saved_replies import ReplySaver
from router.batch.stats import BatchStats
from router.errors import RouterError
from router.logging import get_logger
from router.unified_llm_adapter import UnifiedLLMAdapter

__all__ = ["InProcessRun"]

log = get_logger(__name__)


class InProcessRun:
    """The tasks of one run: a producer reading the input, consumers routing, one writer.

    ``router`` routes every request; with a rate limit it is one whose every attempt waits for
    its turn (:func:`router.batch.limits.limited`).
    """

    def __init__(
        self,
        *,
        router: UnifiedLLMAdapter,
        writer: ResultWriter,
        stats: BatchStats,
        stop: asyncio.Event,
        on_progress: ProgressCallback | None,
        saver: ReplySaver | None = None,
    ) -> None:
        self.router = router
        self.writer = writer
        self.stats = stats
        self.stop = stop
        self.on_progress = on_progress
        self.saver = saver
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
        # The gather over all tasks now holds the producer's cancellation; collect it (without
        # cancelling the consumers it also covers), or asyncio prints "_GatheringFuture
        # exception was never retrieved" at exit.
        work.add_done_callback(_retrieve)
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
            saving = self.saver.saving(item.request_id) if self.saver else nullcontext()
            with saving:
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


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark ``future``'s outcome as seen: it was handled through the tasks it gathered."""
    if not future.cancelled():
        future.exception()
