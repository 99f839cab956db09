"""What a response-cache hit costs beside a routed call: CPU per call and money per call.

Against the emulator in a process of its own (so this process's CPU time is the client's
alone), for one vendor, it routes ``--calls`` distinct grounded questions through a router
with a cache (each a miss: a provider call, extraction, validation, pricing, then the store),
then the same questions again (each a hit: one SQLite read and the stored response). Each
way runs ``--rounds`` times with fresh questions and a fresh cache file; the figure is the
median over the rounds of hit CPU per call over routed CPU per call. The money figure is the
hits' total cost beside the routed calls' (a hit costs nothing). Target: a hit's CPU at most
0.5x a routed call's.

    .venv/bin/python scripts/bench/cache.py [--calls N] [--rounds N] [--vendor V]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the emulator-process helper of the test suite

from targets import load_line, median, target  # noqa: E402

from adapters.registry import provider  # noqa: E402
from router.emulated import emulated_settings  # noqa: E402
from router.router import Router  # noqa: E402
from support.emulator_process import emulator_process  # noqa: E402

TARGET = 0.5


def questions(vendor: str, count: int, start: int) -> list[dict[str, Any]]:
    model = provider(vendor).default_model
    return [
        {
            "vendor": vendor,
            "model": model,
            "grounded": True,
            "messages": [{"role": "user", "content": f"Who founded city number {start + n}?"}],
        }
        for n in range(count)
    ]


def timed(router: Router, requests: list[dict[str, Any]]) -> tuple[float, float]:
    """(CPU µs per call, total cost) of routing ``requests`` one after another."""
    cost = 0.0
    started = time.process_time()
    for request in requests:
        response = router.route(request)
        cost += response.usage.cost.total if response.usage.cost is not None else 0.0
    return (time.process_time() - started) * 1e6 / len(requests), cost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--vendor", default="openai")
    args = parser.parse_args()
    ratios, routed_costs, hit_costs, routed_cpu, hit_cpu = [], [], [], [], []
    with emulator_process() as emulator, tempfile.TemporaryDirectory() as directory:
        settings = emulated_settings(emulator)
        for turn in range(args.rounds):
            requests = questions(args.vendor, args.calls, start=turn * args.calls)
            with Router(settings, cache=Path(directory) / f"round{turn}.sqlite") as router:
                miss_us, miss_cost = timed(router, requests)
                hit_us, hit_cost = timed(router, requests)
            ratios.append(hit_us / miss_us)
            routed_cpu.append(miss_us)
            hit_cpu.append(hit_us)
            routed_costs.append(miss_cost)
            hit_costs.append(hit_cost)
    print(f"{'way':24} {'CPU µs/call':>12} {'cost USD/call':>14}")
    for way, cpu, costs in (
        ("routed (cache miss)", routed_cpu, routed_costs),
        ("cache hit", hit_cpu, hit_costs),
    ):
        print(f"{way:24} {median(cpu):12.0f} {median(costs) / args.calls:14.6f}")
    print(f"rounds (hit / routed CPU): {' '.join(f'{ratio:.3f}' for ratio in ratios)}")
    print(load_line())
    met = target(f"cache: {args.vendor} hit CPU per call / routed call", median(ratios), TARGET)
    met &= target(f"cache: {args.vendor} hit cost per call (USD)", max(hit_costs), 0.0, unit="")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
