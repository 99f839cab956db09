"""CPU-bound jobs on the event loop, in short slices that let pending I/O go first.

Synthesis is pure CPU. Run inline, a burst of requests would each wait for the synthesis of
every earlier one before even being read; queued and drained in slices of a few milliseconds,
every arrival is read, logged and timed promptly, and the jobs still run first in, first out.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["WorkQueue"]

T = TypeVar("T")
_SLICE_S = 0.002


class WorkQueue(Generic[T]):
    """A FIFO of synchronous jobs drained by one task; closing answers the rest with a default."""

    def __init__(self, closed_result: T) -> None:
        self._jobs: deque[tuple[Callable[[], T], asyncio.Future[T]]] = deque()
        self._drainer: asyncio.Task[None] | None = None
        self._closed_result = closed_result
        self._closed = False

    async def run(self, job: Callable[[], T]) -> T:
        """The job's result, computed in turn (or the closed result once closing)."""
        if self._closed:
            return self._closed_result
        loop = asyncio.get_running_loop()
        result: asyncio.Future[T] = loop.create_future()
        self._jobs.append((job, result))
        if self._drainer is None or self._drainer.done():
            self._drainer = loop.create_task(self._drain())
        return await result

    async def _drain(self) -> None:
        while self._jobs:
            until = time.perf_counter() + _SLICE_S
            while self._jobs and time.perf_counter() < until:
                job, result = self._jobs.popleft()
                if result.done():  # its request was cancelled (the client went away)
                    continue
                try:
                    result.set_result(job())
                except Exception as exc:  # handed to the request that waits for it
                    result.set_exception(exc)
            await asyncio.sleep(0)

    def reopen(self) -> None:
        """Accept jobs again after a restart."""
        self._closed = False

    def close(self) -> None:
        """Answer every waiting job with the closed result and take no more."""
        self._closed = True
        while self._jobs:
            _, result = self._jobs.popleft()
            if not result.done():
                result.set_result(self._closed_result)
        if self._drainer is not None:
            self._drainer.cancel()
            self._drainer = None
