"""Request-rate limits: spacing that keeps every 1-second window within the rate, per key, and
every attempt of a call gated, retries included. Time is a clock the test advances."""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
from typing import Any

import pytest

from router.batch.limits import GatedAdapter, RateLimits, SharedSchedule, credential_key
from router.call_limits import CallLimits, DeadlineExceeded, run_within
from router.settings import RouterSettings
from support.shared_turns import take_turns


def busiest_window(times: list[float], width: float = 1.0) -> int:
    """The most events in any half-open window of ``width`` seconds."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t - start < width) for i, start in enumerate(times))


def grant_times(rate: float, requests: int, keys: list[str]) -> dict[str, list[float]]:
    """When each of ``requests`` made at time 0 (round-robin over ``keys``) may start: the
    clock stands still, so a request starts when the wait the limiter gives it ends."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    limits = RateLimits(rate, clock=lambda: 0.0, sleep=sleep)
    granted: dict[str, list[float]] = {key: [] for key in keys}

    async def all_at_once() -> None:
        for n in range(requests):
            key = keys[n % len(keys)]
            before = len(waits)
            await limits.acquire(key)
            granted[key].append(waits[before] if len(waits) > before else 0.0)

    asyncio.run(all_at_once())
    return granted


@pytest.mark.parametrize("rate", [1, 10, 2.5])
def test_no_second_holds_more_than_the_rate_plus_one(rate: float) -> None:
    """100 requests at once: each may start 1/rate after the one before, never in a burst."""
    (times,) = grant_times(rate, 100, ["openai"]).values()
    assert times[:3] == [0.0, pytest.approx(1 / rate), pytest.approx(2 / rate)]
    assert busiest_window(times) <= rate + 1


def test_each_key_has_its_own_limit() -> None:
    """Two keys at 10 rps: each gets 10 a second, neither waits for the other."""
    granted = grant_times(10, 40, ["openai:a", "openai:b"])
    assert granted["openai:a"] == granted["openai:b"]
    assert busiest_window(granted["openai:a"]) <= 11


def test_credential_keys_tell_keys_apart_and_hide_them() -> None:
    """Two API keys of one vendor are two limits; the key names the vendor, not the secret."""
    one = credential_key(RouterSettings(openai_api_key="sk-one"), "openai")
    two = credential_key(RouterSettings(openai_api_key="sk-two"), "openai")
    assert one != two
    assert one.startswith("openai:")
    assert "sk-one" not in one


class Attempts:
    """An adapter whose calls are counted."""

    def __init__(self) -> None:
        self.calls = 0

    async def acomplete(self, request: Any, settings: Any) -> Any:
        self.calls += 1
        return "reply"


async def test_every_attempt_waits_for_its_turn() -> None:
    """Each call of a gated adapter (a first attempt or a retry) takes one turn of its key."""
    acquired: list[str] = []

    async def acquire(key: str) -> None:
        acquired.append(key)

    inner = Attempts()
    adapter = GatedAdapter(lambda: inner, "openai:k", acquire)  # type: ignore[arg-type,return-value]
    for _ in range(3):
        await adapter.acomplete(None, None)  # type: ignore[arg-type]
    assert (acquired, inner.calls) == (["openai:k"] * 3, 3)


class LoopClock:
    """The running loop's own clock, advanced by the test: timers due by it fire at once."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.now = loop.time()
        loop.time = lambda: self.now  # type: ignore[method-assign]

    async def advance(self, seconds: float) -> None:
        """Move the clock on, then give the loop the passes a timer due by now needs to fire
        (one to find it due, one to run it)."""
        self.now += seconds
        for _ in range(3):
            await asyncio.sleep(0)


@pytest.mark.parametrize(("turn_wait", "expected"), [(5.0, "reply"), (0.0, "reply")])
async def test_the_wait_for_a_turn_is_not_part_of_the_deadline(
    turn_wait: float, expected: str
) -> None:
    """A call whose turn comes 5 s into a 2 s deadline still gets its 2 s with the provider;
    a call that then takes longer than 2 s with the provider still ends at its deadline."""
    clock = LoopClock(asyncio.get_running_loop())

    async def acquire(key: str) -> None:
        await clock.advance(turn_wait)  # the schedule made this attempt wait for its turn

    inner = Attempts()
    adapter = GatedAdapter(lambda: inner, "openai:k", acquire)  # type: ignore[arg-type,return-value]
    limits = CallLimits(2.0, clock=lambda: clock.now)
    reply = await run_within(limits, lambda: adapter.acomplete(None, None))  # type: ignore[arg-type]
    assert (reply, limits.remaining(), limits.fired) == (expected, 2.0, None)

    async def slow_provider(request: Any, settings: Any) -> Any:
        await clock.advance(2.5)
        return "too late"

    inner.acomplete = slow_provider  # type: ignore[method-assign]
    with pytest.raises(DeadlineExceeded):
        await run_within(
            CallLimits(2.0, clock=lambda: clock.now), lambda: adapter.acomplete(None, None)
        )  # type: ignore[arg-type]


def test_worker_processes_share_one_schedule() -> None:
    """Two spawned processes taking turns of one key at the same time: each turn starts 1/rate
    after the one before, whichever process took it, and every turn is counted. (The turns are
    handed out, not waited for: a second apart, two schedules of their own would overlap.)"""
    interval, each = 1.0, 100
    context = multiprocessing.get_context("spawn")
    schedule = SharedSchedule(["openai:k", "vertex:k"], context)
    start, results = context.Barrier(3), context.Queue()
    workers = [
        context.Process(
            target=take_turns,
            args=(schedule, start, results),
            kwargs={"key": "openai:k", "count": each, "interval": interval},
        )
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    start.wait(timeout=120)
    turns = sorted(results.get(timeout=120) + results.get(timeout=120))
    for worker in workers:
        worker.join(timeout=120)
    assert len(turns) == 2 * each
    assert min(b - a for a, b in itertools.pairwise(turns)) >= interval * (1 - 1e-9)
    assert schedule.granted() == {"openai:k": 2 * each}


def test_limits_on_one_shared_schedule_keep_one_rate() -> None:
    """Two processes' limits over one schedule, on a clock that stands still: their turns
    interleave 1/rate apart, as one limit's would."""
    schedule = SharedSchedule(["openai:k"], multiprocessing.get_context("spawn"))
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    first, second = (
        RateLimits(10, clock=lambda: 0.0, sleep=sleep, schedule=schedule) for _ in range(2)
    )

    async def alternate() -> None:
        for _ in range(5):
            await first.acquire("openai:k")
            await second.acquire("openai:k")

    asyncio.run(alternate())
    assert waits == pytest.approx([n / 10 for n in range(1, 10)])
    assert (first.granted["openai:k"], second.granted["openai:k"]) == (5, 5)
