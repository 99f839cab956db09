"""Citation extraction cost per recorded body, cold, steady and warm, beside json.loads of it.

For every OpenAI and Gemini/Vertex body in tests/data/recorded (a stream counts as its final
state), it times, in the same run and interleaved call by call so that machine noise falls on
all of them alike (steady in a pass of its own, see ``measure``):

- extract cold: the vendor's extractor on the parsed body, with every memo cache the
  extraction path can use cleared before the call (all ``functools`` caches that take arguments
  in router, adapters, tldextract and idna, found at run time, so a cache added later is
  cleared too). Real traffic does not repeat a body: Vertex redirect URIs are unique per
  response and most OpenAI URLs are new. The target applies to this figure.
- extract steady: the call in a process that has served other replies but never this one:
  the caches are cleared, then filled by extracting every other recorded body of the vendor
  (untimed). Hosts and key names common to replies (the Vertex redirector host, say) are known,
  this reply's own are not. The corpus shares few hosts, so this errs on the cold side of what a
  long-running process sees.
- extract warm: the same call right after the cold one, every cache hot (the body repeated).
- json.loads of the body's JSON text.
- floor: the least any Python extractor must do for the same sources (split each URL, build each
  citation dict; see extract_floor.py), with its host memo kept warm. It shows how much of the
  2x budget is left for the rules themselves once a source has merely been visited.

Each figure is the median of single timed calls, less the cost of timing an empty call.
Target: extraction (cold) at most 2x json.loads.

    .venv/bin/python scripts/bench/extract.py [--samples N]
"""

from __future__ import annotations

import argparse
import functools
import gc
import inspect
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter_ns
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from extract_floor import FLOORS  # noqa: E402

from support.recorded import load_final_body, recorded_files  # noqa: E402

Extractor = Callable[[Any], Any]
TARGET = 2.0
# Modules whose memo caches the extraction path may reach.
_CACHE_OWNERS = ("router", "adapters", "tldextract", "idna")


class Row(NamedTuple):
    vendor: str
    body: str
    citations: int
    cold_us: float
    steady_us: float
    warm_us: float
    loads_us: float
    floor_us: float


def extractors() -> dict[str, Extractor]:
    """The extractors that exist in this checkout, by vendor."""
    found: dict[str, Extractor] = {}
    try:
        from adapters.openai.adapter import _extract_openai_citations

        found["openai"] = _extract_openai_citations
    except ImportError:
        pass
    try:
        from adapters.vertex.adapter import _extract_vertex_citations

        found["vertex"] = _extract_vertex_citations
    except ImportError:
        pass
    return found


def vendor_of(body: dict[str, Any]) -> str | None:
    if "candidates" in body:
        return "vertex"
    if "output" in body or "choices" in body:
        return "openai"
    return None  # Gemini Interactions bodies are not generateContent replies


def memo_caches() -> list[Any]:
    """Every ``functools`` cache with arguments in the modules extraction can reach.

    Caches of functions without arguments are one-time loads (the suffix-list extractor), not
    memos of inputs: real traffic always finds them built, so they stay.
    """
    found = []
    for value in gc.get_objects():
        if not isinstance(value, functools._lru_cache_wrapper):
            continue
        module = getattr(value, "__module__", "") or ""
        if module.split(".")[0] not in _CACHE_OWNERS:
            continue
        try:
            takes_arguments = bool(inspect.signature(value.__wrapped__).parameters)
        except (TypeError, ValueError):
            takes_arguments = True
        if takes_arguments:
            found.append(value)
    return found


def cache_name(cache: Any) -> str:
    """``module.name`` the cache is bound to (``lru_cache(...)(f)`` keeps ``f``'s own name)."""
    module = sys.modules.get(cache.__module__)
    bound = next((name for name, value in vars(module).items() if value is cache), None)
    return f"{cache.__module__}.{bound or cache.__qualname__}"


def clear(caches: list[Any]) -> None:
    for cache in caches:
        cache.cache_clear()


def timed_ns(call: Callable[[], object]) -> int:
    start = perf_counter_ns()
    call()
    return perf_counter_ns() - start


def measure(
    extract: Extractor,
    floor: Extractor,
    *,
    body: dict[str, Any],
    others: list[dict[str, Any]],
    raw: str,
    caches: list[Any],
    samples: int,
) -> tuple[float, float, float, float, float]:
    """(cold, steady, warm, json.loads, floor) in µs: medians of single calls, interleaved,
    less the cost of timing."""
    cold: list[int] = []
    steady: list[int] = []
    warm: list[int] = []
    loads: list[int] = []
    floors: list[int] = []
    empty: list[int] = []

    def run_extract() -> object:
        return extract(body)

    def run_floor() -> object:
        return floor(body)

    def run_loads() -> object:
        return json.loads(raw)

    def run_nothing() -> object:
        return None

    gc.collect()
    gc.disable()  # as timeit does: a collection inside one call is noise, not its cost
    try:
        for _ in range(samples):
            clear(caches)
            cold.append(timed_ns(run_extract))
            warm.append(timed_ns(run_extract))
            loads.append(timed_ns(run_loads))
            floors.append(timed_ns(run_floor))
            empty.append(timed_ns(run_nothing))
        # Apart, after the others: serving them leaves the processor's caches full of their data,
        # which would slow json.loads too and flatter every ratio. Steady is read against the
        # json.loads figure above, so the disturbance counts against it only.
        for _ in range(samples):
            clear(caches)
            for other in others:
                extract(other)
            steady.append(timed_ns(run_extract))
    finally:
        gc.enable()
    overhead = statistics.median(empty)
    return tuple(  # type: ignore[return-value]
        max(statistics.median(times) - overhead, 0.0) / 1e3
        for times in (cold, steady, warm, loads, floors)
    )


def print_table(rows: list[Row]) -> None:
    print(
        f"{'vendor':7} {'body':40} {'cites':>5} {'cold µs':>8} {'steady µs':>9} {'warm µs':>8} "
        f"{'loads µs':>8} {'floor µs':>8} {'cold x':>6} {'steady x':>8} {'warm x':>6} "
        f"{'floor x':>7}"
    )
    for row in rows:
        print(
            f"{row.vendor:7} {row.body[:40]:40} {row.citations:5} {row.cold_us:8.1f} "
            f"{row.steady_us:9.1f} {row.warm_us:8.1f} {row.loads_us:8.1f} {row.floor_us:8.1f} "
            f"{row.cold_us / row.loads_us:6.2f} {row.steady_us / row.loads_us:8.2f} "
            f"{row.warm_us / row.loads_us:6.2f} {row.floor_us / row.loads_us:7.2f}"
        )
    for vendor in sorted({row.vendor for row in rows}):
        mine = [row for row in rows if row.vendor == vendor]
        ratios = {
            column: [getattr(row, f"{column}_us") / row.loads_us for row in mine]
            for column in ("cold", "steady", "warm", "floor")
        }
        met = sum(ratio <= TARGET for ratio in ratios["cold"])
        spread = "; ".join(
            f"{column} median {statistics.median(values):.2f}, max {max(values):.2f}"
            for column, values in ratios.items()
        )
        print(
            f"{vendor}: {spread} over {len(mine)} bodies; {met} within the target "
            f"(cold at most {TARGET:.2f}x json.loads)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", type=int, default=300, help="timed calls per figure")
    args = parser.parse_args()
    available = extractors()
    rows: list[Row] = []
    bodies: list[tuple[str, str, dict[str, Any]]] = []
    for path in recorded_files():
        body = load_final_body(path)
        vendor = vendor_of(body)
        if vendor is not None and vendor in available:
            bodies.append((vendor, path.name, body))
    for vendor, _, body in bodies:
        available[vendor](body)  # imports everything the paths use, before the cache scan
    caches = memo_caches()
    for vendor, name, body in bodies:
        extract = available[vendor]
        others = [other for kind, _, other in bodies if kind == vendor and other is not body]
        figures = measure(
            extract,
            FLOORS[vendor],
            body=body,
            others=others,
            raw=json.dumps(body),
            caches=caches,
            samples=args.samples,
        )
        rows.append(Row(vendor, name, len(extract(body)), *figures))
    if not rows:
        print("no extractor is available yet")
        return 1
    print(f"cleared before each cold call: {', '.join(sorted(map(cache_name, caches))) or 'none'}")
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
