"""The Ray engine end to end: a local Ray cluster, the real SDK clients, the emulator, faults.

One cluster serves the whole module (starting Ray costs seconds): three logical CPUs on however
many cores, exactly the sizing rule's reserve plus two routing actors, so every run here also
shows that the rule leaves room for the checkpoint filter. Each input line carries its fault
(:mod:`support.batch_plan`), so every row and every provider call is known in advance.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from router.batch import RayEngine, run_batch
from router.batch.limits import credential_key
from router.batch.ray_engine.layout import plan_layout
from router.batch.stats import BatchSummary
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.settings import RouterSettings, pool_entry_settings
from support.batch_plan import Planned, check_rows, planned_calls, read_rows, write_plan
from support.emulated import ANSWER_TIMEOUT_S, cli_environment
from support.logs import capture_logs
from support.ray_cluster import local_cluster

# Ray starts processes for its cluster and every job: on a loaded machine a test may take minutes,
# so the suite's two-minute guard is widened here; it still catches a hang.
pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """A local Ray cluster for this module; its address, for CLI runs that join it."""
    with local_cluster() as address:
        yield address


def settings_for(emulator: Emulator) -> RouterSettings:
    return emulated_settings(
        emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0, timeout_s=ANSWER_TIMEOUT_S
    )


def run_on_ray(
    source: Path, output: Path, emulator: Emulator, actors: tuple[int, int] = (2, 2), **options: Any
) -> Any:
    options = {"concurrency": 16, **options}
    engine = RayEngine(actors=actors)
    return run_batch(source, output, settings=settings_for(emulator), engine=engine, **options)


@dataclass(frozen=True)
class FinishedRun:
    source: Path
    output: Path
    plan: dict[str, Planned]
    summary: BatchSummary
    calls: int
    events: list[dict[str, Any]]


@pytest.fixture(scope="module")
def finished(
    ray_address: str, emulator: Emulator, tmp_path_factory: pytest.TempPathFactory
) -> FinishedRun:
    """One job over the fault plan, run to its end (a rate limit set, far above what it needs)."""
    from support.logs import capture_logs

    work = tmp_path_factory.mktemp("finished")
    plan = write_plan(work / "in.jsonl", 200, salt=work.name)
    emulator.clear_requests()
    with capture_logs() as events:
        summary = run_on_ray(work / "in.jsonl", work / "out.jsonl", emulator, max_rps=10_000)
    calls = len(emulator.requests)
    return FinishedRun(work / "in.jsonl", work / "out.jsonl", plan, summary, calls, events)


def test_rows_follow_the_fault_plan(finished: FinishedRun) -> None:
    """Each request_id gets exactly one row, with the outcome its fault planned."""
    check_rows(read_rows(finished.output), finished.plan)


def test_provider_calls_are_requests_plus_scripted_retries(finished: FinishedRun) -> None:
    """No block is routed twice: the emulator saw one call per request and one per retry."""
    assert finished.calls == planned_calls(finished.plan)


def test_summary_counts_the_rows_written(finished: FinishedRun) -> None:
    """The summary counts outcomes and REQUIRED reasons as the rows show them."""
    outcomes = [planned.outcome for planned in finished.plan.values()]
    summary = finished.summary
    assert summary.done == summary.total == len(finished.plan)
    assert summary.outcomes["ok"] == outcomes.count("ok")
    assert summary.outcomes["provider_error"] == outcomes.count("ProviderTransientError")
    assert summary.required_failure_reasons == {
        "no_citations": outcomes.count("no_citations"),
        "not_invoked": outcomes.count("not_invoked"),
    }


def test_the_rows_cost_what_the_summary_says(finished: FinishedRun) -> None:
    """REQUIRED-failed rows carry what their rejected answers cost (error.usage), so the rows'
    cost adds up to the summary's, to its 6 decimal places."""
    calls = [row.get("response") or row.get("error") for row in read_rows(finished.output)]
    costs = [((call or {}).get("usage") or {}).get("cost") for call in calls]
    rejected = [call for call in calls if call and call.get("reason") == "not_invoked"]
    assert rejected
    assert all(call["usage"]["cost"]["total"] > 0 for call in rejected)
    (total,) = finished.summary.cost.totals
    rows_total = sum(cost["total"] for cost in costs if cost is not None)
    assert rows_total == pytest.approx(total["total"], abs=5e-7)


@pytest.mark.slow
def test_2000_rows_follow_the_fault_plan(
    ray_address: str, emulator: Emulator, tmp_path: Path
) -> None:
    """The issue's size: 2,000 REQUIRED rows, one row each, calls = requests + retries."""
    plan = write_plan(tmp_path / "in.jsonl", 2_000, salt=tmp_path.name)
    emulator.clear_requests()
    summary = run_on_ray(tmp_path / "in.jsonl", tmp_path / "out.jsonl", emulator, concurrency=64)
    check_rows(read_rows(tmp_path / "out.jsonl"), plan)
    assert len(emulator.requests) == planned_calls(plan)
    assert summary.done == len(plan)


def comparable(value: Any) -> Any:
    """A row without what differs between two runs of the same request: the latency and the
    ids the emulator makes afresh for every reply (the reply's, its tool calls')."""
    if isinstance(value, list):
        return [comparable(item) for item in value]
    if not isinstance(value, dict):
        return value
    volatile = {"latency_ms", "response_id"} | ({"id"} if "type" in value else set())
    return {key: None if key in volatile else comparable(item) for key, item in value.items()}


def test_rows_are_the_local_engines_rows(finished: FinishedRun, tmp_path: Path) -> None:
    """The local engine, given the same input and replies, writes the same rows, key for key."""
    with Emulator() as fresh:  # the same replies again, faults counted from zero
        run_batch(finished.source, tmp_path / "local.jsonl", settings=settings_for(fresh))
    local = {row["request_id"]: comparable(row) for row in read_rows(tmp_path / "local.jsonl")}
    on_ray = {row["request_id"]: comparable(row) for row in read_rows(finished.output)}
    assert on_ray == local


def test_rate_limit_gates_every_attempt(finished: FinishedRun) -> None:
    """With max_rps, every attempt of every actor, retries included, passes the job's shared
    limiter: one grant per call the emulator saw, kept per vendor and credential."""
    (limited,) = [event for event in finished.events if event["event"] == "batch_rate_limited"]
    assert sum(limited["granted"].values()) == finished.calls
    assert {key.split(":")[0] for key in limited["granted"]} == {"openai", "vertex"}


def busiest_second(times: list[float]) -> int:
    """The most calls in any half-open 1-second window."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t - start < 1.0) for i, start in enumerate(times))


# Slow, and run with --runslow: arrivals are stamped when the emulator reads each request, so on
# a loaded machine two calls the limiter spaced 100 ms apart can arrive closer (one was delayed
# in the client). The rule itself is held in every run by tests/router/batch/test_limits.py, on a
# clock the test controls.
@pytest.mark.slow
def test_no_second_at_the_emulator_exceeds_the_rate(
    ray_address: str, emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At max_rps 10, no 1-second window of arrivals at the emulator holds more than 11 calls
    of one vendor, retries (the plan's 429s and 500s) included and counted."""
    import time

    arrivals: list[tuple[float, str | None]] = []
    log = emulator._log  # stamp each request as the emulator records it
    record = log.add
    monkeypatch.setattr(
        log, "add", lambda entry: (arrivals.append((time.monotonic(), entry.api)), record(entry))
    )
    plan = write_plan(tmp_path / "in.jsonl", 60, salt=tmp_path.name)
    emulator.clear_requests()
    with_limit = run_on_ray(tmp_path / "in.jsonl", tmp_path / "out.jsonl", emulator, max_rps=10)
    check_rows(read_rows(tmp_path / "out.jsonl"), plan)
    assert with_limit.done == len(plan)
    assert len(arrivals) == planned_calls(plan) > len([p for p in plan.values() if p.calls])
    for api in {api for _, api in arrivals}:
        assert busiest_second([t for t, each in arrivals if each == api]) <= 11, api


def test_a_finished_run_resumed_routes_nothing(finished: FinishedRun, emulator: Emulator) -> None:
    """Resuming a finished job calls no provider and leaves the rows as they were."""
    before = sorted(finished.output.read_bytes().splitlines())
    emulator.clear_requests()
    # One actor: every row is filtered out before routing, and each actor costs a process.
    summary = run_on_ray(finished.source, finished.output, emulator, resume=True, actors=(1, 1))
    assert emulator.requests == []
    assert (summary.skipped, summary.done) == (len(finished.plan), 0)
    assert sorted(finished.output.read_bytes().splitlines()) == before


def test_killed_driver_then_rerun_gives_every_id_once(
    ray_address: str, emulator: Emulator, tmp_path: Path
) -> None:
    """SIGKILL of the driver midway, then a resumed run: one row per id, none lost."""
    plan = write_plan(tmp_path / "in.jsonl", 200, salt=tmp_path.name)
    out = tmp_path / "out.jsonl"
    emulator.latency_s = 0.05  # slow enough that the kill lands midway
    emulator.clear_requests()
    try:
        driver = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "router.cli",
                "batch",
                str(tmp_path / "in.jsonl"),
                "-o",
                str(out),
                "--engine",
                "ray",
                "--ray-address",
                ray_address,
                "--actors",
                "1:1",
                "--concurrency",
                "8",
                "--no-progress",
            ],
            env=cli_environment(emulator),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        emulator.wait_for_requests(60, timeout=300)
        driver.kill()
        assert driver.wait(timeout=30) == -signal.SIGKILL
    finally:
        emulator.latency_s = 0.0
    shards = plan_layout(str(out)).shards
    assert len(read_rows(Path(shards))) < len(plan)
    run_on_ray(tmp_path / "in.jsonl", out, emulator, resume=True, actors=(1, 1))
    check_rows(read_rows(out), plan)
    check_rows(read_rows(Path(shards)), plan)


def test_two_actors_call_with_the_two_keys_of_a_pool(
    ray_address: str, emulator: Emulator, tmp_path: Path
) -> None:
    """With a 2-key OpenAI pool and two actors, each actor calls with its own key: both keys
    arrive at the emulator, and the job's limiter counts each call under its key."""
    keys = ["pool-key-Wn6tCk2Qz9Bd4Ps7", "pool-key-Fy3mLr8Xv5Jh1Ng6"]
    settings = emulated_settings(
        emulator,
        credential_pools={"openai": [{"openai_api_key": key} for key in keys]},
        retry_initial_delay_s=0.0,
        retry_max_delay_s=0.0,
        timeout_s=ANSWER_TIMEOUT_S,
    )
    # Four blocks of 16 rows, each call held 0.2 s, so the second block is dispatched while
    # the first is still routing: to the other actor, the one with none in flight.
    lines = [
        {
            "request_id": f"pool-{n}",
            "vendor": "openai",
            "model": "gpt-5",
            "messages": [{"role": "user", "content": f"pool {n} [[emulator:fault=delay:0.2]]"}],
            "grounded": True,
        }
        for n in range(64)
    ]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    emulator.clear_requests()
    with capture_logs() as events:
        summary = run_batch(
            tmp_path / "in.jsonl",
            tmp_path / "out.jsonl",
            settings=settings,
            concurrency=16,
            max_rps=10_000,
            engine=RayEngine(actors=(2, 2)),
        )
    assert summary.outcomes == {"ok": 64}
    seen = [
        request.headers["authorization"].removeprefix("Bearer ") for request in emulator.requests
    ]
    assert set(seen) == set(keys)
    (limited,) = [event for event in events if event["event"] == "batch_rate_limited"]
    assert limited["granted"] == {
        credential_key(pool_entry_settings(settings, number), "openai"): seen.count(key)
        for number, key in enumerate(keys)
    }
