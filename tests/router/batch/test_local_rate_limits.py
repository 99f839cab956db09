"""The local engine's rate limit gates every attempt, retries included, in one process and over
worker processes: on a clock the test advances, then counted at the emulator."""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterResult
from router import LLMRequest, ProviderTransientError, RouterSettings, UnifiedLLMAdapter
from router.batch import LocalEngine, run_batch
from router.batch.input import BatchInput
from router.batch.limits import RateLimits, limited
from router.batch.local_engine.in_process import InProcessRun
from router.batch.output import ResultWriter
from router.batch.stats import BatchStats
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.citations import domain_citation
from support.emulated import ANSWER_TIMEOUT_S
from support.logs import capture_logs
from support.sleeps import RecordedSleeps

RATE = 10.0


class Clock:
    """Time that moves only when the rate limit waits: a wait of s seconds ends s later."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


class FailsFirstAttempt:
    """Vertex: the first attempt at each prompt is a 503, the next one a grounded answer; the
    clock's time of every call is kept."""

    vendor = "vertex"

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.called_at: list[float] = []
        self.failed: set[str] = set()

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        self.called_at.append(self.clock())
        prompt = str(request.messages[-1].content)
        if prompt not in self.failed:
            self.failed.add(prompt)
            raise ProviderTransientError("overloaded", status_code=503, reason="server_error")
        return AdapterResult(
            content=f"answer to {prompt}",
            grounded_effective=True,
            tool_call_count=1,
            citations=[domain_citation("example.com")],
        )

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        raise NotImplementedError("the batch runner is async")

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass


def router_for(adapter: FailsFirstAttempt) -> UnifiedLLMAdapter:
    settings = RouterSettings(_env_file=None, retry_initial_delay_s=0, retry_max_delay_s=0)  # type: ignore[call-arg]
    return UnifiedLLMAdapter(
        settings,
        adapters={"vertex": adapter},  # type: ignore[dict-item]
        async_sleep=RecordedSleeps().asleep,
    )


def write_lines(path: Path, count: int) -> Path:
    lines = [
        {
            "request_id": f"r{number}",
            "vendor": "vertex",
            "model": "gemini-2.5-flash",
            "messages": [{"role": "user", "content": f"question {number}"}],
            "grounded": True,
        }
        for number in range(count)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def busiest_second(times: list[float]) -> int:
    """The most calls in any half-open 1-second window."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t - start < 1.0) for i, start in enumerate(times))


async def test_in_one_process_each_retry_waits_for_its_turn(tmp_path: Path) -> None:
    """20 requests, each retried once, 8 at a time: 40 calls, each 1/rate after the one before
    on the limit's clock, so no second holds more than rate + 1 (a retry that skipped the limit
    would follow its failed attempt at once)."""
    clock = Clock()
    adapter = FailsFirstAttempt(clock)
    limits = RateLimits(RATE, clock=clock, sleep=clock.sleep)
    writer = ResultWriter(tmp_path / "out.jsonl")
    stats = BatchStats()
    run = InProcessRun(
        router=limited(router_for(adapter), limits),
        writer=writer,
        stats=stats,
        stop=asyncio.Event(),
        on_progress=None,
    )
    source = write_lines(tmp_path / "in.jsonl", 20)
    interrupted = await run.execute(BatchInput(source), set(), concurrency=8, grace_s=1.0)
    writer.close()
    assert not interrupted
    assert stats.outcomes == {"ok": 20}
    assert len(adapter.called_at) == sum(limits.granted.values()) == 40
    times = sorted(adapter.called_at)
    assert min(b - a for a, b in itertools.pairwise(times)) == pytest.approx(1 / RATE)
    assert busiest_second(times) <= RATE + 1


def test_the_engine_counts_a_turn_for_every_call(tmp_path: Path) -> None:
    """run_batch with max_rps: the turns the run logs are the calls the adapter got, retries
    included; without max_rps no turn is counted."""
    adapter = FailsFirstAttempt(Clock())
    source = write_lines(tmp_path / "in.jsonl", 6)
    with capture_logs() as events:
        summary = run_batch(
            source,
            tmp_path / "out.jsonl",
            max_rps=10_000,
            engine=LocalEngine(router=router_for(adapter)),
        )
    assert summary.outcomes == {"ok": 6}
    (limited_run,) = [event for event in events if event["event"] == "batch_rate_limited"]
    assert sum(limited_run["granted"].values()) == len(adapter.called_at) == 12


# Per 10 lines: a 429 answered on the retry, a 500 answered on the retry, a 500 on every attempt
# (three calls), the rest answered at once; vertex and openai alternate.
FAULTS = {1: ("[[emulator:fault=429:0*1]]", 2), 2: ("[[emulator:fault=500*1]]", 2)}
FAULTS[3] = ("[[emulator:fault=500]]", 3)


def emulated_lines(path: Path, count: int, salt: str) -> int:
    """Write ``count`` lines; return the provider calls they make, retries included."""
    calls, lines = 0, []
    for number in range(count):
        fault, made = FAULTS.get(number % 10, ("", 1))
        vendor = "openai" if number % 2 else "vertex"
        lines.append(
            {
                "request_id": f"{salt}-{number}",
                "vendor": vendor,
                "model": "gpt-5" if vendor == "openai" else "gemini-2.5-flash",
                "messages": [{"role": "user", "content": f"{salt} question {number} {fault}"}],
                "grounded": True,
            }
        )
        calls += made
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return calls


@dataclass(frozen=True)
class LimitedRun:
    """A run of emulated lines under a rate limit: the calls its lines plan, the turns the run
    logged per key, and each call's arrival at the emulator (its time and API)."""

    planned: int
    granted: dict[str, int]
    arrivals: list[tuple[float, str | None]]


def run_limited(
    emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> LimitedRun:
    """Run 40 emulated lines through the local engine with ``options`` (max_rps, workers)."""
    import time

    lines, engine = options.pop("lines", 40), LocalEngine(workers=options.pop("workers"))
    planned = emulated_lines(tmp_path / "in.jsonl", lines, tmp_path.name)
    arrivals: list[tuple[float, str | None]] = []
    record = emulator._log.add  # stamp each request as the emulator records it
    monkeypatch.setattr(
        emulator._log,
        "add",
        lambda entry: (arrivals.append((time.monotonic(), entry.api)), record(entry)),
    )
    settings = emulated_settings(
        emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0, timeout_s=ANSWER_TIMEOUT_S
    )
    with capture_logs() as events:
        run_batch(
            tmp_path / "in.jsonl",
            tmp_path / "out.jsonl",
            settings=settings,
            concurrency=16,
            engine=engine,
            **options,
        )
    (limited_run,) = [event for event in events if event["event"] == "batch_rate_limited"]
    return LimitedRun(planned, limited_run["granted"], arrivals)


@pytest.mark.parametrize("workers", [1, 2])
def test_every_call_at_the_emulator_took_a_turn(
    emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """Counted at the emulator, in one process and over two workers: every call, retries of
    429s and 500s included, took one turn of its vendor's limit, one limit per key."""
    run = run_limited(emulator, tmp_path, monkeypatch, max_rps=500, workers=workers)
    assert len(run.arrivals) == run.planned == sum(run.granted.values())
    assert sorted(key.split(":")[0] for key in run.granted) == ["openai", "vertex"]
    for api in ("openai", "vertex"):
        turns = sum(count for key, count in run.granted.items() if key.startswith(f"{api}:"))
        assert turns == sum(1 for _, each in run.arrivals if each == api)


# Slow, and run with --runslow: arrivals are stamped when the emulator reads each request, so on
# a loaded machine two calls the limit spaced 100 ms apart can arrive closer (one was delayed in
# its client). The margin of one call over rate + 1 absorbs one such pair; the rule itself is
# held in every run above, on a clock the test controls.
@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_no_second_at_the_emulator_exceeds_the_rate(
    emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """At max_rps 10, retries included, no 1-second window of arrivals at the emulator holds
    more than 12 calls of one vendor (rate + 1, and a call of margin)."""
    run = run_limited(emulator, tmp_path, monkeypatch, lines=60, max_rps=RATE, workers=workers)
    assert len(run.arrivals) == run.planned
    for api in ("openai", "vertex"):
        assert busiest_second([t for t, each in run.arrivals if each == api]) <= RATE + 2, api
