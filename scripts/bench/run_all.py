"""Every bench, one after another, then one table of every target: its figure, met or missed.

``make bench`` runs this. Each bench runs in a process of its own at a size chosen so that the
whole run finishes in under 5 minutes on a 2-core machine (``--full``: each at its own default
size, which takes longer and gives steadier figures). The quick batch bench times the openai
and Vertex rows only: each way of each vendor is a process of its own, and all six vendors
took four minutes alone; ``--full`` (or ``run_all.py batch`` with the bench's own options, see
batch.py) covers every vendor. A bench's output is shown as it comes;
its ``target |`` lines (see targets.py) are collected for the summary, each with the machine's
load when it was measured, and its ``bound |`` lines (the least a targeted figure could reach
as the code is built) in a table of their own. A bench that ends without stating a target or a
bound, or fails, shows as ``FAILED`` in the summary.

    .venv/bin/python scripts/bench/run_all.py [--full] [bench ...]

Exit status: 0 when every target is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

from targets import BOUND_PREFIX, PREFIX, load_line

HERE = Path(__file__).resolve().parent

# Each bench with the options of the quick run; the order puts the per-call figures first.
BENCHES: dict[str, tuple[str, ...]] = {
    "route": ("--calls", "30", "--async-calls", "150", "--rounds", "5", "--import-runs", "3"),
    "route_budget": ("--calls", "120", "--rounds", "5"),
    "extract": ("--samples", "15"),
    "verify": ("--samples", "15"),
    "batch": (
        *("--requests", "2000", "--concurrency", "64", "--vendor", "openai", "--vendor", "vertex"),
        *("--memory-sizes", "1000,10000"),
    ),
    "stream": ("--runs", "15", "--repeats", "10"),
    "fanout": ("--rounds", "20"),
    "tracing": ("--calls", "100"),
    "citations": ("--repeat", "50"),
    "emulator": (),
    "report": ("--rows", "10000", "--rounds", "2"),
    "cache": ("--calls", "50", "--rounds", "3"),
}


class Line(NamedTuple):
    bound: bool
    """A bound line (the least the figure could reach), not a target line."""
    bench: str
    what: str
    figure: str
    limit: str
    verdict: str
    load: str


def run(bench: str, options: tuple[str, ...]) -> tuple[list[Line], int, float]:
    """Run one bench, echoing its output; (its target lines, its exit status, seconds)."""
    command = [sys.executable, str(HERE / f"{bench}.py"), *options]
    print(f"== {bench}: {' '.join(command[1:])}", flush=True)
    started = time.perf_counter()
    lines: list[Line] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, bufsize=1) as process:
        assert process.stdout is not None
        for text in process.stdout:
            print(text, end="", flush=True)
            for prefix in (PREFIX, BOUND_PREFIX):
                if text.startswith(prefix):
                    fields = [field.strip() for field in text[len(prefix) :].split("|")]
                    what, figure, limit, verdict, load = (fields + [""] * 5)[:5]
                    load = load.removeprefix("load ")
                    lines.append(
                        Line(prefix == BOUND_PREFIX, bench, what, figure, limit, verdict, load)
                    )
    return lines, process.returncode, time.perf_counter() - started


def summary(lines: list[Line], failed: dict[str, int], seconds: dict[str, float]) -> None:
    width = max([len(line.what) for line in lines] + [40])
    targets = [line for line in lines if not line.bound]
    bounds = [line for line in lines if line.bound]
    print()
    took = sum(seconds.values())
    print(f"== summary: {len(targets)} targets, {took:.0f} s in all; {load_line()}")
    if targets:
        _table("target", targets, width)
    if bounds:
        print()
        print("bounds: the least each figure could reach as the code is built, beside its limit")
        _table("bound", bounds, width)
    for bench, status in failed.items():
        print(f"{bench:12} {'(the bench failed, exit status ' + str(status) + ')':{width}} FAILED")
    timing = ", ".join(f"{bench} {took:.0f} s" for bench, took in seconds.items())
    print(f"time per bench: {timing}")


def _table(title: str, lines: list[Line], width: int) -> None:
    print(f"{'bench':12} {title:{width}} {'figure':>10} {'limit':>10} {'':6} {'load':>6}")
    for line in lines:
        print(
            f"{line.bench:12} {line.what:{width}} {line.figure:>10} {line.limit:>10} "
            f"{line.verdict:6} {line.load:>6}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="every bench at its default size")
    parser.add_argument("benches", nargs="*", help=f"only these, of: {', '.join(BENCHES)}")
    args = parser.parse_args()
    unknown = set(args.benches) - set(BENCHES)
    if unknown:
        parser.error(f"no such bench: {', '.join(sorted(unknown))}")
    lines: list[Line] = []
    failed: dict[str, int] = {}
    seconds: dict[str, float] = {}
    for bench in args.benches or BENCHES:
        found, status, seconds[bench] = run(bench, () if args.full else BENCHES[bench])
        lines += found
        # A missed target exits 1 too; a bench that states no target or bound has failed.
        missed = [line for line in found if not line.bound and line.verdict != "met"]
        if not found or (status != 0 and not missed):
            failed[bench] = status
    summary(lines, failed, seconds)
    met = all(line.verdict == "met" for line in lines if not line.bound)
    return 0 if not failed and met else 1


if __name__ == "__main__":
    sys.exit(main())
