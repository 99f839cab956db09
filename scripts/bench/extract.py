"""Citation extraction cost per recorded body, beside json.loads of the same body.

For every OpenAI and Gemini/Vertex body in tests/data/recorded (a stream counts as its final
state), it times the vendor's extractor on the parsed body and json.loads on the raw text, in the
same run, and prints both with their ratio. Target: extraction at most 2x json.loads.

    .venv/bin/python scripts/bench/extract.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from support.recorded import load_final_body, recorded_files  # noqa: E402

Extractor = Callable[[Any], Any]


def extractors() -> dict[str, Extractor]:
    """The extractors that exist in this checkout, by vendor."""
    found: dict[str, Extractor] = {}
    try:
        from adapters.openai_adapter import _extract_openai_citations

        found["openai"] = _extract_openai_citations
    except ImportError:
        pass
    try:
        from adapters.vertex_adapter import _extract_vertex_citations

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


def per_call_us(call: Callable[[], object], repeat: int) -> float:
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=repeat, number=number)
    return min(runs) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timing repeats (the best counts)")
    args = parser.parse_args()
    available = extractors()
    rows: list[tuple[str, str, int, float, float]] = []
    for path in recorded_files():
        body = load_final_body(path)
        vendor = vendor_of(body)
        if vendor is None or vendor not in available:
            continue
        raw = json.dumps(body)
        extract = available[vendor]
        count = len(extract(body))
        loads_us = per_call_us(lambda raw=raw: json.loads(raw), args.repeat)
        extract_us = per_call_us(lambda body=body, extract=extract: extract(body), args.repeat)
        rows.append((vendor, path.name, count, extract_us, loads_us))
    if not rows:
        print("no extractor is available yet")
        return 1
    print(f"{'vendor':7} {'body':60} {'cites':>5} {'extract µs':>11} {'loads µs':>9} {'ratio':>6}")
    for vendor, name, count, extract_us, loads_us in rows:
        ratio = extract_us / loads_us
        print(
            f"{vendor:7} {name[:60]:60} {count:5} {extract_us:11.1f} {loads_us:9.1f} {ratio:6.2f}"
        )
    for vendor in sorted({row[0] for row in rows}):
        ratios = [row[3] / row[4] for row in rows if row[0] == vendor]
        print(
            f"{vendor}: median ratio {statistics.median(ratios):.2f}, "
            f"max {max(ratios):.2f} over {len(ratios)} bodies (target: at most 2.00)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
