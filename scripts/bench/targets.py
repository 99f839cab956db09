"""One way for every bench to state a target: a line the summary of ``make bench`` collects.

Each bench prints its own tables, then one ``target |`` line per target it measured:
``target | <what> | <figure> | <limit> | met`` (or ``MISSED``) ``| load <1-minute average>``.
A ``bound |`` line, of the same form, states the least a targeted figure could reach as the
code is built (``within`` or ``above`` the limit); the summary shows bounds apart from targets.
``scripts/bench/run_all.py`` runs every bench and puts those lines together in one table. The
machine's load goes with every table and every target line, as the figures mean little without
it on a shared machine.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable

__all__ = ["BOUND_PREFIX", "PREFIX", "bound", "load_line", "median", "state", "target"]

PREFIX = "target | "
BOUND_PREFIX = "bound | "


def target(what: str, figure: float, limit: float, unit: str = "x") -> bool:
    """Print the target line of ``what`` (met when ``figure`` is at most ``limit``)."""
    return state(what, _shown(figure, unit), f"<= {limit:g}{unit}", figure <= limit)


def state(what: str, figure: str, limit: str, met: bool) -> bool:
    """Print a target line whose figure is not a single number (a count, a yes or no)."""
    _print_line(PREFIX, what, figure, limit, "met" if met else "MISSED")
    return met


def bound(what: str, figure: float, limit: float, unit: str = "x") -> None:
    """Print a bound line: the least a figure with a target could reach as the code is built
    (its wrapper kept, its rules dropped, say), beside that target's limit. Not a target: the
    summary lists bounds apart, so a reader sees when a limit is out of any tuning's reach."""
    verdict = "within" if figure <= limit else "above"
    _print_line(BOUND_PREFIX, what, _shown(figure, unit), f"{limit:g}{unit}", verdict)


def _shown(figure: float, unit: str) -> str:
    # Four significant digits: with three, 3.004 showed as "3x" beside a limit of 3x, MISSED.
    return f"{figure:.4g}{unit}"


def _print_line(prefix: str, what: str, figure: str, limit: str, verdict: str) -> None:
    load = os.getloadavg()[0]
    print(f"{prefix}{what} | {figure} | {limit} | {verdict} | load {load:.2f}", flush=True)


def load_line() -> str:
    """The machine's load averages and core count, to print beside a table."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))
