"""Credential pools spread over a local batch job: worker i calls with entry i of the pool, and
each key's calls are limited on their own, counted at the emulator and on a frozen clock."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from pathlib import Path

import pytest

from router import LLMRequest, UnifiedLLMAdapter
from router.batch import LocalEngine, run_batch
from router.batch.limits import RateLimits, SharedSchedule, credential_key, limited
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.settings import RouterSettings, pool_entry_settings
from support.emulated import ANSWER_TIMEOUT_S
from support.logs import capture_logs

KEY_0 = "pool-key-Vb4kNq7Zr2Xm9Lt5"
KEY_1 = "pool-key-Hd8wPc3Jy6Gs1Rf4"
POOL = {"openai": [{"openai_api_key": KEY_0}, {"openai_api_key": KEY_1}]}
RATE = 10.0


def pooled_settings(emulator: Emulator, pools: object = POOL) -> RouterSettings:
    return emulated_settings(
        emulator,
        credential_pools=pools,
        retry_initial_delay_s=0.0,
        retry_max_delay_s=0.0,
        timeout_s=ANSWER_TIMEOUT_S,
    )


def openai_request(request_id: str, extra: str = "") -> dict[str, object]:
    return {
        "request_id": request_id,
        "vendor": "openai",
        "model": "gpt-5",
        "messages": [{"role": "user", "content": f"question {request_id} {extra}"}],
        "grounded": True,
    }


def keys_at_the_emulator(emulator: Emulator) -> list[str]:
    """The bearer key of every request the emulator received."""
    return [
        request.headers["authorization"].removeprefix("Bearer ")
        for request in emulator.requests
    ]  # fmt: skip


@pytest.mark.parametrize(("workers", "keys"), [(1, {KEY_0}), (2, {KEY_0, KEY_1})])
def test_each_worker_calls_with_its_own_pool_entry(
    emulator: Emulator, tmp_path: Path, workers: int, keys: set[str]
) -> None:
    """With a 2-key pool, two workers call OpenAI with both keys and take each call's turn under
    that key's own limit; one process uses the first entry only."""
    # Each call waits half a second at the emulator and each worker runs one at a time, so one
    # worker could not take every line before the other has started.
    lines = [openai_request(f"r{n}", "[[emulator:fault=delay:0.5]]") for n in range(16)]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    settings = pooled_settings(emulator)
    emulator.clear_requests()
    with capture_logs() as events:
        summary = run_batch(
            tmp_path / "in.jsonl",
            tmp_path / "out.jsonl",
            settings=settings,
            concurrency=workers,
            max_rps=10_000,
            engine=LocalEngine(workers=workers),
        )
    assert summary.outcomes == {"ok": 16}
    seen = keys_at_the_emulator(emulator)
    assert set(seen) == keys
    (limited_run,) = [event for event in events if event["event"] == "batch_rate_limited"]
    expected = {
        credential_key(pool_entry_settings(settings, number), "openai"): seen.count(key)
        for number, key in enumerate([KEY_0, KEY_1])
        if key in keys
    }
    assert limited_run["granted"] == expected
    for row in (tmp_path / "out.jsonl").read_text().splitlines():
        assert KEY_0 not in row
        assert KEY_1 not in row


class RecordedTurns:
    """A schedule that keeps the time each turn was given, per key."""

    def __init__(self, inner: SharedSchedule) -> None:
        self.inner = inner
        self.turns: dict[str, list[float]] = {}

    def take(self, key: str, now: float, interval: float) -> float:
        at = self.inner.take(key, now, interval)
        self.turns.setdefault(key, []).append(at)
        return at


async def _never_waits(_seconds: float) -> None:
    """A wait for a turn that returns at once: the clock stays at 0, so each turn's time is
    what the schedule gave it, however the calls interleave."""


@pytest.mark.parametrize("pools", [POOL, {}], ids=["pooled", "one-key"])
async def test_each_pooled_key_has_its_own_limit(emulator: Emulator, pools: object) -> None:
    """Two workers' routers, 10 calls each at max_rps 10 on one shared schedule: with a 2-key
    pool each key's turns run 0.0, 0.1, ..., 0.9 side by side; with one key the 20 calls queue
    behind one limit, 0.0 to 1.9."""
    settings = pooled_settings(emulator, pools)
    schedule = RecordedTurns(
        SharedSchedule.for_settings(settings, multiprocessing.get_context("spawn"))
    )
    limits = RateLimits(RATE, clock=lambda: 0.0, sleep=_never_waits, schedule=schedule)
    emulator.clear_requests()

    async def worker(number: int) -> None:
        async with UnifiedLLMAdapter(pool_entry_settings(settings, number)) as built:
            router = limited(built, limits)
            await asyncio.gather(
                *(
                    router.aroute(LLMRequest.model_validate(openai_request(f"w{number}-{n}")))
                    for n in range(10)
                )
            )

    await asyncio.gather(worker(0), worker(1))
    tenths = {key: [round(at * RATE) for at in times] for key, times in schedule.turns.items()}
    if pools:
        assert sorted(tenths) == sorted(
            credential_key(pool_entry_settings(settings, n), "openai") for n in range(2)
        )
        assert all(turns == list(range(10)) for turns in tenths.values())
        assert sorted(keys_at_the_emulator(emulator)) == sorted([KEY_0] * 10 + [KEY_1] * 10)
    else:
        assert list(tenths.values()) == [list(range(20))]
