"""The queue that runs synthesis in slices on the event loop."""

from __future__ import annotations

import asyncio

import pytest

from router.emulator.work_queue import WorkQueue


@pytest.mark.asyncio
async def test_jobs_run_first_in_first_out() -> None:
    """Jobs finish in the order they were queued, each with its own result."""
    queue: WorkQueue[int | None] = WorkQueue(closed_result=None)
    order: list[int] = []

    def job(n: int) -> int:
        order.append(n)
        return n * n

    results = await asyncio.gather(*(queue.run(lambda n=n: job(n)) for n in range(5)))
    assert results == [0, 1, 4, 9, 16]
    assert order == [0, 1, 2, 3, 4]


@pytest.mark.asyncio
async def test_a_failing_job_fails_only_its_caller() -> None:
    """An exception reaches the request that queued the job; the next job still runs."""
    queue: WorkQueue[int | None] = WorkQueue(closed_result=None)

    def boom() -> int:
        raise ValueError("bad body")

    outcomes = await asyncio.gather(queue.run(boom), queue.run(lambda: 7), return_exceptions=True)
    assert isinstance(outcomes[0], ValueError)
    assert outcomes[1] == 7


@pytest.mark.asyncio
async def test_close_answers_waiting_jobs_with_the_closed_result() -> None:
    """On close, queued jobs are not run; their callers get the closed result at once."""
    queue: WorkQueue[str] = WorkQueue(closed_result="closed")
    ran: list[str] = []

    def close_the_queue() -> str:
        queue.close()
        return "first"

    def never() -> str:
        ran.append("never")
        return "ran"

    assert await asyncio.gather(queue.run(close_the_queue), queue.run(never)) == [
        "first",
        "closed",
    ]
    assert ran == []
    assert await queue.run(lambda: "late") == "closed"
