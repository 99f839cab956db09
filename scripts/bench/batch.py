"""Batch throughput against the aiohttp floor and the raw SDK, and the memory a run holds.

For each vendor with raw baselines (baselines.py): N requests (REQUIRED grounding, distinct
prompts) against an emulator with a fixed latency, in a process of its own, at the same
concurrency, each way in a fresh process of its own:

- floor: the same bodies POSTed with one aiohttp session and their replies decoded with
  ``json.loads``, bounded by a semaphore: what any Python client must pay at least;
- default: the SDK exactly as its README shows it (default async client, typed response);
- raw response / generic post: the fastest ways to drive the same SDK (its aiohttp transport,
  the untyped body, one client reused); the cheaper of them is "fastest raw SDK";
- aroute() alone: the same requests through one router's ``aroute``, no batch engine: what
  a one-process batch pays for routing, its ``bound`` line the least that batch could reach;
- batch: ``run_batch`` in one process (citations, validation, the output file, stats);
- batch --workers 2: worker processes, the parent writing the one output file.

Each raw way's first reply is read with the vendor's reply mapper and must be a grounded, cited
answer (``baselines.check_reply``), so no way is timed on an error path.

It prints wall time, CPU time (of the process and its workers; the emulator's is not counted)
in all and per request ("CPU ms"), that CPU against the floor's ("x CPU"), the wall time's
ratios to the ideal (N x latency / concurrency), to the floor, to the default SDK and to the
fastest raw SDK, and peak RSS per process. The targets are on wall time; on a loaded machine
wall time says more about the load than about the code, and the CPU per request is the
figure to compare between runs (with the load printed beside it). With several
``--concurrency`` values the targets apply to the first; the others show the headroom. The
defaults are the sizes of the targets: 10,000 requests at c=64, and c=256 for the headroom
(every vendor: about 25 minutes on two cores). The quick ``make bench`` times 2,000 requests at
c=64 for openai and Vertex, where the workers' start-up (about 1.2 s before their first row)
weighs five times as much.
Targets: one process at most 1.25x the floor; two workers at most 1.15x the floor; peak RSS at
most 150 MB per process.

``--memory-sizes A,B`` (default 10,000 and 100,000, the sizes of the target; ``none`` skips
it): peak RSS of one-process batches of A and B lines (openai, in fresh processes, at the last
``--concurrency``); target: the larger within 10% of the smaller, and each at most 150 MB.
``--requests 0`` runs only this. The quick ``make bench`` measures 1,000 and 10,000 lines, the
same tenfold step: 10,000 and 100,000 lines are 110,000 routed requests, some four minutes of
CPU at about 2 ms a request on a quiet machine (half an hour on a loaded 2-core one), where
the quick run has about a minute; ``run_all.py --full`` measures the sizes of the target.

An SDK way that fails (say, the default client's own timeouts at high concurrency on a loaded
machine) is reported and left out; the floor or a batch run that fails ends the bench.

With ``--engine ray`` it compares the engines instead, for 2,000 and 10,000 requests (both
vendors, one in 50 scripted to get a 429 answered on the retry): ``batch --workers 2`` against
``batch --engine ray`` on a local cluster the run starts (its start counted in its wall time),
each in a fresh process, and the provider calls the emulator saw. Targets: the Ray engine at
most 1.5x the local engine's wall time at 10,000 requests; calls = requests + scripted retries.

    .venv/bin/python scripts/bench/batch.py [--requests N] [--latency-ms MS]
        [--concurrency C[,C...]] [--rounds N] [--vendor V] [--memory-sizes A,B]
    .venv/bin/python scripts/bench/batch.py --engine ray [--sizes 2000,10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the emulator-process helper of the test suite

from targets import bound, load_line, state, target  # noqa: E402

from adapters.registry import provider  # noqa: E402
from support.emulator_process import EmulatorAddresses, emulator_process  # noqa: E402

TIMEOUT_S = 60
RAW_WAYS = ("floor", "default", "raw response", "generic post")
ROUTED = {"route": "aroute() alone, no batch", "batch": "batch", "workers": "batch --workers 2"}
ENGINE_VARIANTS = ("workers", "ray")
RETRY_EVERY = 50  # one request in this many gets a 429 once
ONE_PROCESS, TWO_WORKERS, RSS_MB, FLAT = 1.25, 1.15, 150.0, 1.10


def settings_for(addresses: EmulatorAddresses, *, retry: bool = False) -> Any:
    """Settings for the emulator (running in another process) at ``addresses``.

    ``retry``: a scripted 429 is retried at once, as its Retry-After of 0 says.
    """
    from router.emulated import emulated_settings

    waits = {"retry_initial_delay_s": 0.0, "retry_max_delay_s": 0.0} if retry else {}
    return emulated_settings(addresses, timeout_s=TIMEOUT_S, **waits)


def addresses_of(emulator: Any) -> EmulatorAddresses:
    """The addresses of a running emulator, in or out of this process."""
    return EmulatorAddresses(
        **{f.name: getattr(emulator, f.name) for f in fields(EmulatorAddresses)}
    )


def write_input(path: Path, vendor: str, count: int) -> None:
    with path.open("w") as handle:
        for number in range(count):
            request = {
                "request_id": f"{vendor}-{number}",
                "vendor": vendor,
                "model": provider(vendor).default_model,
                "messages": [{"role": "user", "content": f"What changed in district {number}?"}],
                "grounded": True,
                "grounding_mode": "REQUIRED",
            }
            handle.write(json.dumps(request) + "\n")


def raw_ways(vendor: str) -> list[str]:
    """The raw ways baselines.py has for ``vendor``, the floor first."""
    from baselines import async_raw

    async def names() -> list[str]:
        unused = EmulatorAddresses(*["http://127.0.0.1:1"] * len(fields(EmulatorAddresses)))
        callers = async_raw(vendor, settings_for(unused), 1)  # made, never called
        await callers.aclose()
        return list(callers.calls)

    found = asyncio.run(names())
    return [way for way in RAW_WAYS if way in found]


async def raw(way: str, source: Path, emulator: EmulatorAddresses, concurrency: int) -> None:
    """Every request of ``source`` sent the raw ``way`` of baselines.py, ``concurrency`` at once."""
    from baselines import async_raw, check_reply

    from router.types import LLMRequest

    requests = [LLMRequest.model_validate_json(line) for line in source.read_text().splitlines()]
    callers = async_raw(requests[0].vendor, settings_for(emulator), concurrency)
    call = callers.calls[way]
    gate = asyncio.Semaphore(concurrency)

    async def send(request: LLMRequest) -> None:
        async with gate:
            reply = await call(request)
        if request is requests[0]:  # one reply read, so a way answered by an error cannot pass
            check_reply(request.vendor, way, reply, request)

    await asyncio.gather(*(send(request) for request in requests))
    await callers.aclose()


async def route_alone(source: Path, emulator: EmulatorAddresses, concurrency: int) -> None:
    """Every request of ``source`` through one router's ``aroute``, ``concurrency`` at once: the
    routing a batch does, without its engine (reading lines, rows, the file, statistics)."""
    from router.router import UnifiedLLMAdapter
    from router.types import LLMRequest

    requests = [LLMRequest.model_validate_json(line) for line in source.read_text().splitlines()]
    gate = asyncio.Semaphore(concurrency)
    async with UnifiedLLMAdapter(settings_for(emulator, retry=True)) as router:

        async def send(request: LLMRequest) -> None:
            async with gate:
                await router.aroute(request)

        await asyncio.gather(*(send(request) for request in requests))


def write_engine_input(path: Path, count: int) -> int:
    """Both vendors alternating, one request in RETRY_EVERY with a 429 once; the retries."""
    with path.open("w") as handle:
        for number in range(count):
            vendor = ("openai", "vertex")[number % 2]
            fault = "[[emulator:fault=429:0*1]]" if number % RETRY_EVERY == 0 else ""
            question = f"What changed in area {number}? {fault}"
            request = {
                "request_id": f"r{number}",
                "vendor": vendor,
                "model": provider(vendor).default_model,
                "messages": [{"role": "user", "content": question}],
                "grounded": True,
                "grounding_mode": "REQUIRED",
            }
            handle.write(json.dumps(request) + "\n")
    return len(range(0, count, RETRY_EVERY))


def run_on_ray(source: Path, emulator: EmulatorAddresses, concurrency: int) -> dict[str, Any]:
    """The Ray engine on a local cluster started here: its start, then the job."""
    from router.batch.ray_engine.cluster import connect

    started = time.perf_counter()
    connect(None)
    cluster_s = time.perf_counter() - started
    from router.batch import RayEngine

    run_to_the_end(source, emulator, concurrency, engine=RayEngine())
    return {"wall_s": time.perf_counter() - started, "cluster_s": cluster_s}


def run_to_the_end(
    source: Path, emulator: EmulatorAddresses, concurrency: int, **options: Any
) -> None:
    """``run_batch`` over ``source`` into a scratch file; every request must be answered."""
    from router.batch import run_batch

    with tempfile.TemporaryDirectory() as scratch:
        summary = run_batch(
            source,
            Path(scratch) / "out.jsonl",
            settings=settings_for(emulator, retry=True),
            concurrency=concurrency,
            **options,
        )
    if summary.outcomes.get("ok") != summary.total:
        raise SystemExit(f"not every request answered: {summary.outcomes}")


def run_variant(
    variant: str, source: Path, emulator: EmulatorAddresses, concurrency: int
) -> dict[str, Any]:
    """Run one variant in this process; report wall time and peak RSS (self and children)."""
    if variant == "ray":
        return run_on_ray(source, emulator, concurrency)
    # Start-up is not throughput: the SDK, aiohttp and the router are imported before the clock
    # starts, for every way alike (worker processes of --workers 2 start within it).
    from router.batch import LocalEngine

    with source.open() as lines:
        raw_ways(json.loads(next(lines))["vendor"])  # makes (and closes) every raw client
    started, cpu = time.perf_counter(), cpu_s()
    if variant in RAW_WAYS:
        asyncio.run(raw(variant, source, emulator, concurrency))
    elif variant == "route":
        asyncio.run(route_alone(source, emulator, concurrency))
    else:
        workers = 2 if variant == "workers" else 1
        run_to_the_end(source, emulator, concurrency, engine=LocalEngine(workers=workers))
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"wall_s": wall, "cpu_s": cpu_s() - cpu, "rss_mb": own, "worker_rss_mb": children}


def cpu_s() -> float:
    """CPU seconds of this process and its ended children (the workers of --workers 2)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def child_command(
    variant: str, source: Path, emulator: EmulatorAddresses, concurrency: int
) -> list[str]:
    return [
        sys.executable,
        __file__,
        "--variant",
        variant,
        "--input",
        str(source),
        "--emulator",
        json.dumps(asdict(emulator)),
        "--concurrency",
        str(concurrency),
    ]


CHILD_ENV = {**os.environ, "PYTHONWARNINGS": "ignore"}


class WayFailed(Exception):
    """A way's child process ended in error; the message is the last line it printed."""


def child_figures(returncode: int, stdout: str, stderr: str) -> dict[str, Any]:
    if returncode != 0:
        print(stderr[-2000:], file=sys.stderr)
        raise WayFailed((stderr.strip().splitlines() or ["no output"])[-1])
    figures: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return figures


def run_child(
    variant: str, source: Path, emulator: EmulatorAddresses, concurrency: int
) -> dict[str, Any]:
    """One variant in a fresh process of its own; its figures."""
    child = subprocess.run(
        child_command(variant, source, emulator, concurrency),
        capture_output=True,
        text=True,
        check=False,
        env=CHILD_ENV,
    )
    return child_figures(child.returncode, child.stdout, child.stderr)


class Run:
    """The figures of every way for one vendor at one concurrency: the medians over rounds."""

    def __init__(self, vendor: str, concurrency: int, requests: int, latency_ms: float) -> None:
        self.vendor, self.concurrency, self.requests = vendor, concurrency, requests
        self.ideal_s = requests * latency_ms / 1000 / concurrency
        self.samples: dict[str, list[dict[str, Any]]] = {}

    @property
    def figures(self) -> dict[str, dict[str, Any]]:
        """Per way, its round of median wall time (peak RSS from the same round)."""
        return {
            way: sorted(runs, key=lambda figures: figures["wall_s"])[(len(runs) - 1) // 2]
            for way, runs in self.samples.items()
        }

    def wall(self, way: str) -> float:
        return float(self.figures[way]["wall_s"])

    def fastest_raw(self) -> str:
        """The cheapest SDK way that ran (the floor, should none have)."""
        sdk_ways = [way for way in self.figures if way in RAW_WAYS[1:]]
        return min(sdk_ways, key=self.wall) if sdk_ways else "floor"

    def cpu_ms(self, way: str) -> float:
        """CPU milliseconds per request of ``way`` (its process and its workers)."""
        return 1000 * float(self.figures[way]["cpu_s"]) / self.requests

    def print_rows(self) -> None:
        floor, floor_cpu = self.wall("floor"), self.cpu_ms("floor")
        default = self.wall("default") if "default" in self.samples else float("nan")
        fastest = self.fastest_raw()
        for way, figures in self.figures.items():
            name = ROUTED.get(way, way) + (" (fastest raw SDK)" if way == fastest else "")
            worker_mb = f"{figures['worker_rss_mb']:9.0f}" if way == "workers" else f"{'-':>9}"
            wall, cpu = figures["wall_s"], self.cpu_ms(way)
            print(
                f"{self.vendor:10} {self.concurrency:4} {name:34} {wall:7.2f} "
                f"{figures['cpu_s']:6.2f} {cpu:7.3f} {cpu / floor_cpu:6.2f} "
                f"{wall / self.ideal_s:7.2f} {wall / floor:7.2f} "
                f"{wall / default:9.2f} {wall / self.wall(fastest):9.2f} "
                f"{figures['rss_mb']:7.0f} {worker_mb}"
            )

    def targets(self, requests: int) -> bool:
        floor = self.wall("floor")
        where = f"{self.vendor} {requests} req c={self.concurrency}"
        ok = target(f"batch: {where}, one process / floor", self.wall("batch") / floor, ONE_PROCESS)
        # A one-process batch routes every request as aroute() does, plus its engine's work.
        bound(f"batch: {where}, aroute() alone / floor", self.wall("route") / floor, ONE_PROCESS)
        # The vendor's official SDK (which DESIGN.md makes the transport) with no router at all:
        # what no router on that SDK can go below.
        if (fastest := self.fastest_raw()) != "floor":
            sdk = self.wall(fastest) / floor
            bound(f"batch: {where}, fastest raw SDK alone / floor", sdk, ONE_PROCESS)
        ok &= target(
            f"batch: {where}, --workers 2 / floor", self.wall("workers") / floor, TWO_WORKERS
        )
        peak = max(
            self.figures["batch"]["rss_mb"],
            self.figures["workers"]["rss_mb"],
            self.figures["workers"]["worker_rss_mb"],
        )
        return ok & target(f"batch: {where}, peak RSS per process", peak, RSS_MB, " MB")


def compare_ways(
    requests: int, latency_ms: float, concurrencies: list[int], rounds: int, only: list[str]
) -> bool:
    """The raw ways, batch and batch --workers 2, per vendor and concurrency, in rounds (each
    round every way once, in an order rotated from the last), so load that comes and goes falls
    on all of them alike."""
    from baselines import covered

    from adapters.registry import vendors

    chosen, uncovered = covered(only or vendors())
    if uncovered:
        print(f"no raw baselines in baselines.py, so not measured: {', '.join(uncovered)}")
    print(
        f"{requests} requests per vendor, {latency_ms:.0f} ms latency, concurrency "
        f"{', '.join(map(str, concurrencies))}; each way in a fresh process, medians of "
        f"{rounds} round(s); wall and CPU time from after start-up (imports)"
    )
    print(load_line())
    print(
        f"{'vendor':10} {'c':>4} {'way':34} {'wall s':>7} {'CPU s':>6} {'CPU ms':>7} "
        f"{'x CPU':>6} {'x ideal':>7} {'x floor':>7} {'x default':>9} {'x fastest':>9} "
        f"{'RSS MB':>7} {'worker MB':>9}"
    )
    ok = True
    with (
        emulator_process("--latency-ms", str(latency_ms)) as emulator,
        tempfile.TemporaryDirectory() as scratch,
    ):
        for vendor in chosen:
            source = Path(scratch) / f"{vendor}.jsonl"
            write_input(source, vendor, requests)
            for number, concurrency in enumerate(concurrencies):
                run = Run(vendor, concurrency, requests, latency_ms)
                ways = [*raw_ways(vendor), *ROUTED]
                for turn in range(rounds):
                    for way in ways[turn % len(ways) :] + ways[: turn % len(ways)]:
                        try:
                            figures = run_child(way, source, emulator, concurrency)
                        except WayFailed as failure:
                            if way not in RAW_WAYS[1:]:  # the floor and the router must run
                                raise
                            # An SDK way that cannot keep up (its own timeouts) is left out.
                            print(f"{vendor:10} {concurrency:4} {way} failed: {failure}")
                            continue
                        run.samples.setdefault(way, []).append(figures)
                run.samples = {way: run.samples[way] for way in ways if way in run.samples}
                run.print_rows()
                if number == 0:
                    ok &= run.targets(requests)
    print(load_line())
    return ok


def compare_sizes(sizes: list[int], latency_ms: float, concurrency: int) -> bool:
    """Peak RSS of a one-process batch per input size: memory must not grow with the input."""
    print(f"peak RSS of one-process batches (openai, {latency_ms:.0f} ms, c={concurrency})")
    print(f"{'lines':>8} {'wall s':>7} {'RSS MB':>7}")
    peaks = []
    with (
        emulator_process("--latency-ms", str(latency_ms)) as emulator,
        tempfile.TemporaryDirectory() as scratch,
    ):
        for size in sizes:
            source = Path(scratch) / f"in-{size}.jsonl"
            write_input(source, "openai", size)
            figures = run_child("batch", source, emulator, concurrency)
            peaks.append(figures["rss_mb"])
            print(f"{size:8} {figures['wall_s']:7.2f} {figures['rss_mb']:7.0f}")
    print(load_line())
    ok = target(f"batch: peak RSS at {sizes[-1]} lines / at {sizes[0]}", peaks[-1] / peaks[0], FLAT)
    return ok & target("batch: peak RSS, any size", max(peaks), RSS_MB, " MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000, help="requests per vendor")
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument(
        "--concurrency", default="64,256", help="one or more, comma-separated (targets: the first)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="runs of every way (medians)")
    parser.add_argument("--vendor", action="append", help="only this vendor (repeatable)")
    parser.add_argument(
        "--memory-sizes",
        default="10000,100000",
        help="input sizes whose peak RSS to compare: A,B (none: skip)",
    )
    parser.add_argument("--engine", choices=["local", "ray"], default="local")
    parser.add_argument(
        "--sizes", default="2000,10000", help="with --engine ray: requests per comparison"
    )
    parser.add_argument("--variant", choices=(*RAW_WAYS, *ROUTED, "ray"), help=argparse.SUPPRESS)
    parser.add_argument("--input", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--emulator", type=json.loads, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:  # a child run: one variant, its figures as JSON on stdout
        addresses = EmulatorAddresses(**args.emulator)
        figures = run_variant(args.variant, args.input, addresses, int(args.concurrency))
        print(json.dumps(figures))
        return 0
    if args.engine == "ray":
        sizes = [int(size) for size in args.sizes.split(",")]
        return compare_engines(sizes, args.latency_ms, int(args.concurrency))

    concurrencies = [int(value) for value in args.concurrency.split(",")]
    ok = args.requests == 0 or compare_ways(
        args.requests, args.latency_ms, concurrencies, args.rounds, args.vendor or []
    )
    if args.memory_sizes != "none":
        print()
        sizes = [int(size) for size in args.memory_sizes.split(",")]
        ok &= compare_sizes(sizes, args.latency_ms, concurrencies[-1])
    return 0 if ok else 1


def compare_engines(sizes: list[int], latency_ms: float, concurrency: int) -> int:
    """The local engine (two workers) against the Ray engine, per size; calls counted."""
    import logging

    import structlog

    from router.emulator import Emulator

    # The emulator runs in this process: its start and stop events would break up the table.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    print(
        f"{latency_ms:.0f} ms latency, concurrency {concurrency}, one request in {RETRY_EVERY} "
        "with a 429 answered on the retry; an emulator in this process counts the calls"
    )
    print(
        f"{'requests':>8} {'engine':18} {'wall s':>7} {'x local':>8} {'cluster s':>9} "
        f"{'calls':>7} {'expected':>8}"
    )
    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        for size in sizes:
            source = Path(scratch) / f"in-{size}.jsonl"
            expected = size + write_engine_input(source, size)
            results = {}
            for variant in ENGINE_VARIANTS:
                # A fresh emulator per run: its scripted 429s fire anew, its count starts at 0.
                with Emulator(latency_s=latency_ms / 1000, log_limit=2 * expected) as emulator:
                    figures = run_child(variant, source, addresses_of(emulator), concurrency)
                    figures["calls"] = len(emulator.requests)
                results[variant] = figures
            local = results["workers"]["wall_s"]
            for variant, name in (("workers", "local --workers 2"), ("ray", "ray (local)")):
                figures = results[variant]
                cluster = f"{figures['cluster_s']:9.2f}" if "cluster_s" in figures else f"{'-':>9}"
                print(
                    f"{size:8} {name:18} {figures['wall_s']:7.2f} "
                    f"{figures['wall_s'] / local:8.2f} {cluster} {figures['calls']:7} {expected:8}"
                )
                ok &= state(
                    f"batch: {name} at {size}, provider calls",
                    str(figures["calls"]),
                    f"= {expected}",
                    figures["calls"] == expected,
                )
            if size == max(sizes):
                ratio = results["ray"]["wall_s"] / local
                ok &= target(f"batch: ray / local --workers 2 at {size}", ratio, 1.5)
    print(load_line())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
