"""What asking several providers at once costs beside asking the slowest of them alone.

Against one in-process emulator with a fixed latency, each round times one ``aroute`` per
vendor (one after another; the slowest of them is the round's baseline) and one ``aroute_many``
over all of them with the very same requests, alternating so machine noise hits both alike.
Three vendors take part, the first three of the registry, or those ``--vendors`` names (``all``:
every registered vendor). Target, over three vendors: ``aroute_many`` at most 1.10x the slowest
single ``aroute`` (medians over the rounds). Each call costs the event loop a few milliseconds
of CPU that no concurrency hides, so the ratio grows with the number of vendors.

    .venv/bin/python scripts/bench/fanout.py [--rounds N] [--latency-ms MS] [--vendors A,B,C|all]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from typing import Any

from targets import load_line, target

from adapters.registry import vendors
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.fanout import plan_requests
from router.router import UnifiedLLMAdapter

QUESTION: dict[str, Any] = {
    "messages": [{"role": "user", "content": "What is the capital of France?"}],
    "grounded": True,
}
TARGET = 1.10


def elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


async def measure(
    chosen: list[str], rounds: int, latency_s: float
) -> tuple[list[float], list[float], dict[str, float]]:
    """(slowest single call per round, fan-out per round, median single call per vendor), ms."""
    singles: dict[str, list[float]] = {vendor: [] for vendor in chosen}
    slowest: list[float] = []
    fanned: list[float] = []
    with Emulator(latency_s=latency_s) as emulator:
        async with UnifiedLLMAdapter(emulated_settings(emulator)) as router:
            requests = plan_requests(QUESTION, chosen, router=router)
            for _ in range(5):  # warm-up: clients and connection pools on both paths
                await router.aroute_many(QUESTION, chosen)
            for _ in range(rounds):
                this_round = []
                for vendor, request in requests.items():
                    started = time.perf_counter()
                    await router.aroute(request)
                    singles[vendor].append(elapsed_ms(started))
                    this_round.append(singles[vendor][-1])
                slowest.append(max(this_round))
                started = time.perf_counter()
                await router.aroute_many(QUESTION, chosen)
                fanned.append(elapsed_ms(started))
    medians = {vendor: statistics.median(times) for vendor, times in singles.items()}
    return slowest, fanned, medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50, help="timed rounds")
    parser.add_argument("--latency-ms", type=float, default=100.0, help="emulator latency")
    parser.add_argument(
        "--vendors",
        default=",".join(vendors()[:3]),
        help="comma-separated vendors to ask, or all (default: the first three registered)",
    )
    args = parser.parse_args()
    given = vendors() if args.vendors == "all" else args.vendors.split(",")
    chosen = [name.strip() for name in given if name.strip()]
    slowest, fanned, medians = asyncio.run(measure(chosen, args.rounds, args.latency_ms / 1000))
    print(
        f"{len(medians)} vendors, {args.rounds} rounds, emulator latency {args.latency_ms:.0f} ms"
    )
    print(f"{'what':32} {'median ms':>10} {'p95 ms':>8}")
    for vendor, median in medians.items():
        print(f"{'aroute ' + vendor:32} {median:10.1f}")
    for label, times in (("slowest single aroute", slowest), ("aroute_many (all)", fanned)):
        p95 = statistics.quantiles(times, n=20, method="inclusive")[18]
        print(f"{label:32} {statistics.median(times):10.1f} {p95:8.1f}")
    print(load_line())
    ratio = statistics.median(fanned) / statistics.median(slowest)
    name = f"fanout: aroute_many over {len(chosen)} vendors / slowest single aroute"
    return 0 if target(name, ratio, TARGET) else 1


if __name__ == "__main__":
    sys.exit(main())
