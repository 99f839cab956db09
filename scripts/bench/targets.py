"""One way for every bench to state a target: a line the summary of ``make bench`` collects.

Each bench prints its own tables, then one ``target |`` line per target it measured:
``target | <what> | <figure> | <limit> | met`` (or ``MISSED``) ``| load <1-minute average>``.
``scripts/bench/run_all.py`` runs every bench and puts those lines together in one table. The
machine's load goes with every table and every target line, as the figures mean little without
it on a shared machine.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable

__all__ = ["PREFIX", "load_line", "median", "state", "target"]

PREFIX = "target | "


def target(what: str, figure: float, limit: float, unit: str = "x") -> bool:
    """Print the target line of ``what`` (met when ``figure`` is at most ``limit``)."""
    return state(what, f"{figure:.3g}{unit}", f"<= {limit:g}{unit}", figure <= limit)


def state(what: str, figure: str, limit: str, met: bool) -> bool:
    """Print a target line whose figure is not a single number (a count, a yes or no)."""
    verdict = "met" if met else "MISSED"
    load = os.getloadavg()[0]
    print(f"{PREFIX}{what} | {figure} | {limit} | {verdict} | load {load:.2f}", flush=True)
    return met


def load_line() -> str:
    """The machine's load averages and core count, to print beside a table."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))
