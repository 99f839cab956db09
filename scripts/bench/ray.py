"""The Ray engine against the local engine, by phase: start-up, routing, tail; driver RSS.

Each engine runs the same input (plain grounded requests, both vendors alternating) in a fresh
process of its own against one emulator with a fixed latency, which runs in this process and
stamps each request as it arrives. The engines: the local engine in one process, the local
engine with ``--workers 2``, and the Ray engine joining a three-node cluster on this machine
(``ray.cluster_utils.Cluster``: a head without CPUs and two worker nodes of two logical CPUs,
each a raylet of its own, as the multi-node tests run it; ``--ray-address`` joins another
instead). The phases come from the emulator's stamps, the same clock for every engine:

- start-up: from the driver's start to the first provider call (imports, for Ray joining the
  cluster, the actors and their SDK clients);
- routing: from the first provider call to the last;
- tail: from the last call to the driver's exit (the last commits, the merge, shutting down).

It prints the phases, the routing phase's ratio to the faster local run's (target: at most
1.3x), the driver's peak RSS and CPU seconds (its own and its children's: the local engine's
worker processes, none of Ray's, whose actors run in the cluster's processes), the provider
calls the emulator saw, and the machine's load.

    .venv/bin/python scripts/bench/ray.py [--rows 10000] [--latency-ms 100] [--concurrency 64]
        [--ray-address ADDR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
# This file's directory leads sys.path, where this file would shadow the ray package: it goes
# last instead, still there for the local engine's worker processes, which run this file again.
sys.path[:] = [str(ROOT / "tests")] + [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.append(str(HERE))

from targets import load_line, target  # noqa: E402

from support.emulator_process import EmulatorAddresses  # noqa: E402

ROUTING_TARGET = 1.3
ENGINES = ("local", "local-w2", "ray")


def write_input(path: Path, rows: int) -> None:
    with path.open("w") as handle:
        for number in range(rows):
            vendor, model = (("openai", "gpt-5"), ("vertex", "gemini-2.5-flash"))[number % 2]
            request = {
                "request_id": f"r{number}",
                "vendor": vendor,
                "model": model,
                "messages": [{"role": "user", "content": f"What changed in area {number}?"}],
                "grounded": True,
            }
            handle.write(json.dumps(request) + "\n")


def drive(engine: str, source: Path, addresses: dict[str, Any], args: argparse.Namespace) -> None:
    """The child: one run to its end; prints its summary's counts and peak RSS as JSON."""
    from router.batch import LocalEngine, RayEngine, run_batch
    from router.emulated import emulated_settings

    settings = emulated_settings(EmulatorAddresses(**addresses), timeout_s=60)
    chosen: Any = (
        RayEngine(address=args.ray_address)
        if engine == "ray"
        else LocalEngine(workers=2 if engine == "local-w2" else 1)
    )
    with tempfile.TemporaryDirectory() as scratch:
        summary = run_batch(
            source,
            Path(scratch) / "out.jsonl",
            settings=settings,
            concurrency=args.concurrency,
            engine=chosen,
        )
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    ok = summary.outcomes.get("ok", 0)
    print(json.dumps({"ok": ok, "rss_mb": own.ru_maxrss / 1024, "cpu_s": cpu_s}))


def run(engine: str, source: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One engine in a fresh process against a fresh emulator; its phases from the stamps."""
    from dataclasses import asdict, fields

    from router.emulator import Emulator

    with Emulator(latency_s=args.latency_ms / 1000, log_limit=4 * args.rows) as emulator:
        stamps: list[float] = []
        log = emulator._log
        record = log.add
        log.add = lambda entry: (stamps.append(time.monotonic()), record(entry))  # type: ignore[method-assign]
        addresses = {f.name: getattr(emulator, f.name) for f in fields(EmulatorAddresses)}
        command = [
            sys.executable,
            __file__,
            "--child",
            engine,
            "--input",
            str(source),
            "--emulator",
            json.dumps(asdict(EmulatorAddresses(**addresses))),
            "--concurrency",
            str(args.concurrency),
            *(["--ray-address", args.ray_address] if args.ray_address else []),
        ]
        started = time.monotonic()
        child = subprocess.run(
            command, capture_output=True, text=True, check=False, env={**os.environ}
        )
        ended = time.monotonic()
    if child.returncode != 0:
        raise SystemExit(f"{engine} failed: {child.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    figures.update(
        startup_s=stamps[0] - started,
        routing_s=stamps[-1] - stamps[0],
        tail_s=ended - stamps[-1],
        wall_s=ended - started,
        calls=len(stamps),
    )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--ray-address", default=None)
    parser.add_argument("--child", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--input", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--emulator", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        drive(args.child, args.input, json.loads(args.emulator), args)
        return 0
    print(load_line())
    print(
        f"{args.rows} rows, {args.latency_ms:.0f} ms latency, concurrency {args.concurrency}; "
        f"ideal routing {args.rows * args.latency_ms / 1000 / args.concurrency:.1f} s"
    )
    with ExitStack() as stack:
        if args.ray_address is None:
            args.ray_address = stack.enter_context(three_nodes())
            print("ray: a head without CPUs and two worker nodes of 2 logical CPUs, one machine")
        print(
            f"{'engine':9} {'start-up s':>10} {'routing s':>9} {'tail s':>7} {'wall s':>7} "
            f"{'x local':>8} {'RSS MB':>7} {'CPU s':>6} {'calls':>6}"
        )
        results: dict[str, dict[str, Any]] = {}
        with tempfile.TemporaryDirectory() as scratch:
            source = Path(scratch) / "in.jsonl"
            write_input(source, args.rows)
            for engine in ENGINES:
                figures = results[engine] = run(engine, source, args)
                ratio = figures["routing_s"] / results["local"]["routing_s"]
                print(
                    f"{engine:9} {figures['startup_s']:10.2f} {figures['routing_s']:9.2f} "
                    f"{figures['tail_s']:7.2f} {figures['wall_s']:7.2f} {ratio:8.2f} "
                    f"{figures['rss_mb']:7.0f} {figures['cpu_s']:6.1f} {figures['calls']:6}"
                )
                if figures["ok"] != args.rows:
                    raise SystemExit(f"{engine}: {figures['ok']} of {args.rows} rows answered")
    local = min(results["local"]["routing_s"], results["local-w2"]["routing_s"])
    ratio = results["ray"]["routing_s"] / local
    ok = target("ray: routing phase / the faster local engine's", ratio, ROUTING_TARGET)
    print(load_line())
    return 0 if ok else 1


@contextmanager
def three_nodes() -> Iterator[str]:
    """A head without CPUs and two worker nodes of two logical CPUs each; its address."""
    from ray.cluster_utils import Cluster

    nodes = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 0,
            "include_dashboard": False,
            # Ray's memory monitor counts every process of this shared machine.
            "_system_config": {"memory_monitor_refresh_ms": 0},
        },
    )
    try:
        for _ in range(2):
            nodes.add_node(num_cpus=2)
        nodes.wait_for_nodes()
        yield str(nodes.address)
    finally:
        nodes.shutdown()


if __name__ == "__main__":
    sys.exit(main())
