"""The call limits: one deadline for a whole call or stream, a counted reply size."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from router.call_limits import (
    CallLimits,
    DeadlineExceeded,
    ReplyTooLarge,
    aiterate_within,
    bounded_timeout,
    count_reply_bytes,
    current_limits,
    deadlines_chosen_by,
    iterate_within,
    limits_for,
    limits_scope,
    run_within,
)
from router.settings import RouterSettings
from router.types import LLMRequest


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_bounded_timeout_is_cut_to_what_the_deadline_leaves() -> None:
    """A transport's 30 s wait becomes the 2 s left; none left is DeadlineExceeded, fired."""
    clock = Clock()
    limits = CallLimits(5.0, clock=clock)
    with limits_scope(limits):
        clock.now += 3.0
        assert bounded_timeout(30.0) == pytest.approx(2.0)
        assert bounded_timeout(None) == pytest.approx(2.0)
        clock.now += 2.0
        with pytest.raises(DeadlineExceeded):
            bounded_timeout(30.0)
    assert limits.fired == "deadline"
    assert bounded_timeout(30.0) == 30.0  # outside a call, nothing is cut


def test_stream_is_ended_by_the_deadline_between_items() -> None:
    """Wrapping an iterator: items pass while time is left, then DeadlineExceeded."""
    clock = Clock()
    limits = CallLimits(1.0, clock=clock)

    def slow() -> Iterator[int]:
        for number in range(10):
            assert current_limits() is limits  # each next() runs inside the call's limits
            clock.now += 0.4
            yield number

    with pytest.raises(DeadlineExceeded):
        assert list(iterate_within(limits, slow())) == [0, 1, 2]
    assert limits.fired == "deadline"


def test_finished_stream_within_the_deadline_is_whole() -> None:
    """An iterator that ends in time gives every item."""
    assert list(iterate_within(CallLimits(5.0), iter(range(5)))) == [0, 1, 2, 3, 4]


async def test_async_stream_that_stalls_ends_at_the_deadline() -> None:
    """Wrapping an async iterator whose next item never comes ends with DeadlineExceeded."""
    limits = CallLimits(0.05)

    async def stalls() -> AsyncIterator[int]:
        yield 1
        await asyncio.Event().wait()
        yield 2

    received: list[int] = []

    async def consume() -> None:
        async for item in aiterate_within(limits, stalls()):
            received.append(item)

    with pytest.raises(DeadlineExceeded):
        await consume()
    assert received == [1]
    assert limits.fired == "deadline"


async def test_run_within_cancels_a_call_at_the_deadline() -> None:
    """An awaited call that never finishes is cancelled when the deadline passes."""
    limits = CallLimits(0.05)
    with pytest.raises(DeadlineExceeded):
        await run_within(limits, asyncio.Event().wait)
    assert limits.fired == "deadline"


def test_reply_bytes_past_the_limit_fire_reply_size() -> None:
    """Counting a reply past max_reply_bytes raises ReplyTooLarge and names the limit."""
    limits = CallLimits(5.0, max_reply_bytes=1_000)
    with limits_scope(limits):
        count_reply_bytes(1_000)
        with pytest.raises(ReplyTooLarge):
            count_reply_bytes(1_001)
    assert limits.fired == "reply_size"
    error = limits.error("OpenAI", "openai")
    assert error is not None
    assert error.reason == "reply_too_large"


def test_deadline_error_says_which_limit_fired() -> None:
    """The deadline's error is transient, with reason deadline and the seconds in its message."""
    limits = CallLimits(2.0)
    assert limits.error("Vertex AI", "vertex") is None
    limits.fired = "deadline"
    error = limits.error("Vertex AI", "vertex")
    assert error is not None
    assert error.reason == "deadline"
    assert "deadline of 2 s" in error.message


def _request(timeout_s: float) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": "openai",
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Capital of Peru?"}],
            "timeout_s": timeout_s,
        }
    )


def test_deadlines_chosen_by_sets_each_calls_deadline_inside_the_block_only() -> None:
    """Inside the block a call's deadline is the chosen one; outside, the request's timeout_s."""
    request, settings = _request(20.0), RouterSettings()
    asked: list[float] = []

    def choose(chosen_for: LLMRequest, seconds: float) -> float:
        assert chosen_for is request
        asked.append(seconds)
        return 0.25 if len(asked) == 1 else seconds

    with deadlines_chosen_by(choose):
        assert [limits_for(request, settings).seconds for _ in range(2)] == [0.25, 20.0]
    assert limits_for(request, settings).seconds == 20.0
    assert asked == [20.0, 20.0]


def test_deadlines_chosen_by_reaches_calls_on_a_new_event_loop() -> None:
    """asyncio.run() inside the block sees the choice, as aroute() from sync code does."""
    request, settings = _request(20.0), RouterSettings()

    async def seconds() -> float:
        return limits_for(request, settings).seconds

    with deadlines_chosen_by(lambda _request, _seconds: 0.25):
        assert asyncio.run(seconds()) == 0.25
