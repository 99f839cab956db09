"""Timing blocks of calls by the CPU they cost this process and by the wall clock.

CPU time (``time.process_time``: every thread of this process, nothing of the emulator's, which
runs in a process of its own) is the figure that holds on a shared machine; wall time is shown
beside it. Variants are measured in rounds, each round timing every variant on the same
requests in a rotated order, so load that comes and goes falls on all of them alike; the
figures are medians over the rounds.

Every block starts from a full collection (untimed). A full collection walks every object of
the process (the SDKs' and the suffix list's alone are about 140,000, 60-100 ms); it comes when
enough objects have outlived younger collections since the last one, whichever block made them,
so without this it fell on whichever way's block happened to be running: one way's round cost
up to 0.5 ms more per call, and the per-round ratio of aroute() over the fastest raw way ranged
from 0.88 to 1.83 within one run. A block's own collections, full ones included, still count.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple

from targets import median

from router.types import LLMRequest

__all__ = [
    "Figures",
    "Timing",
    "async_rounds",
    "per_round",
    "question",
    "requests_for",
    "sync_rounds",
]

SyncCall = Callable[[LLMRequest], Any]
AsyncCall = Callable[[LLMRequest], Awaitable[Any]]


class Timing(NamedTuple):
    cpu_us: float
    """CPU time of this process per call, µs."""
    wall_ms: float
    """Wall time per call (a block's wall time over its calls; with concurrency, per call)."""


class Figures(NamedTuple):
    """Medians over the rounds."""

    cpu_us: float
    wall_ms: float
    rounds: list[Timing]


def per_round(
    mine: Figures, theirs: Figures, compare: Callable[[float, float], float]
) -> list[float]:
    """``compare(mine, theirs)`` of the CPU µs per call in each round: two ways timed on the
    same requests close together, so load that changes between rounds cancels out."""
    return [
        compare(one.cpu_us, other.cpu_us)
        for one, other in zip(mine.rounds, theirs.rounds, strict=True)
    ]


def question(number: int) -> str:
    return f"What changed in district {number}?"


def requests_for(vendor: str, model: str, count: int, start: int = 0) -> list[LLMRequest]:
    """``count`` grounded requests with distinct prompts (the emulator cites distinct pages)."""
    return [
        LLMRequest.model_validate(
            {
                "vendor": vendor,
                "model": model,
                "messages": [{"role": "user", "content": question(number)}],
                "grounded": True,
            }
        )
        for number in range(start, start + count)
    ]


def _block(cpu: float, wall: float, calls: int) -> Timing:
    return Timing(cpu / calls * 1e6, wall / calls * 1e3)


def time_sync(call: SyncCall, requests: Sequence[LLMRequest]) -> Timing:
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    for request in requests:
        call(request)
    return _block(time.process_time() - cpu, time.perf_counter() - wall, len(requests))


async def time_async(call: AsyncCall, requests: Sequence[LLMRequest], concurrency: int) -> Timing:
    gate = asyncio.Semaphore(concurrency)

    async def one(request: LLMRequest) -> None:
        async with gate:
            await call(request)

    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(request) for request in requests))
    return _block(time.process_time() - cpu, time.perf_counter() - wall, len(requests))


def _rotated(names: list[str], turn: int) -> list[str]:
    shift = turn % len(names)
    return names[shift:] + names[:shift]


def _figures(timings: dict[str, list[Timing]]) -> dict[str, Figures]:
    return {
        name: Figures(median(t.cpu_us for t in rounds), median(t.wall_ms for t in rounds), rounds)
        for name, rounds in timings.items()
    }


def sync_rounds(
    variants: dict[str, SyncCall], make_requests: Callable[[int], list[LLMRequest]], rounds: int
) -> dict[str, Figures]:
    """Each variant on ``make_requests(round)``, once untimed to warm up, then ``rounds`` times."""
    names = list(variants)
    warm = make_requests(-1)
    for name in names:
        time_sync(variants[name], warm)
    timings: dict[str, list[Timing]] = {name: [] for name in names}
    for turn in range(rounds):
        requests = make_requests(turn)
        for name in _rotated(names, turn):
            timings[name].append(time_sync(variants[name], requests))
    return _figures(timings)


async def async_rounds(
    variants: dict[str, AsyncCall],
    make_requests: Callable[[int], list[LLMRequest]],
    rounds: int,
    concurrency: int,
) -> dict[str, Figures]:
    """The async twin of :func:`sync_rounds`, ``concurrency`` calls in flight."""
    names = list(variants)
    warm = make_requests(-1)
    for name in names:
        await time_async(variants[name], warm, concurrency)
    timings: dict[str, list[Timing]] = {name: [] for name in names}
    for turn in range(rounds):
        requests = make_requests(turn)
        for name in _rotated(names, turn):
            timings[name].append(await time_async(variants[name], requests, concurrency))
    return _figures(timings)
