"""Benchmark: canonical URL + registrable domain per citation URL, against a bare tldextract lookup.

Runs over the recorded provider URLs of tests/data/urls.json (rows whose id starts with
"recorded-"). The baseline, a bare ``TLDExtract(suffix_list_urls=(), cache_dir=None)(url)``, is
measured in the same run, so the ratio holds on any machine. Three ways of ours are timed:

- warm: steady state, the host caches filled (a running service or batch);
- cold: the host caches cleared before every pass (each host met for the first time);
- make_citation: the whole citation build, for scale (no target).

Target (issue 3): normalize_url + registrable_domain at most 3x the bare lookup.

    .venv/bin/python scripts/bench/citations.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from targets import load_line, target
from tldextract import TLDExtract

from router.citations import domains as domains_module
from router.citations import hosts as hosts_module
from router.citations import make_citation, normalize_url, registrable_domain

ROOT = Path(__file__).resolve().parents[2]
TARGET_RATIO = 3.0


def recorded_urls() -> list[str]:
    """The recorded provider URLs of the URL table."""
    table = json.loads((ROOT / "tests" / "data" / "urls.json").read_text(encoding="utf-8"))
    return [row["input"] for row in table["normalize_url"] if row["id"].startswith("recorded-")]


def clear_host_caches() -> None:
    """Forget every cached host, so the next pass meets each host for the first time."""
    domains_module.host_parts.cache_clear()
    hosts_module.canonical_host.cache_clear()
    hosts_module._authority_and_host.cache_clear()


def per_url_us(
    run: Callable[[], None], urls: int, repeat: int, before: Callable[[], None] | None = None
) -> float:
    """Median microseconds per URL over ``repeat`` passes (``before`` runs untimed)."""
    samples = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) / urls * 1e6)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="timed passes (default 200)")
    args = parser.parse_args(argv)

    urls = recorded_urls()
    bare = TLDExtract(suffix_list_urls=(), cache_dir=None)
    bare("https://example.com")  # load the bundled list outside the timing
    registrable_domain("https://example.com")

    def bare_lookup() -> None:
        for url in urls:
            bare(url)

    def ours() -> None:
        for url in urls:
            canonical = normalize_url(url)
            registrable_domain(canonical or url)

    def citations() -> None:
        for rank, url in enumerate(urls, start=1):
            make_citation(provider="openai", url=url, rank=rank, raw={"url": url})

    ours()  # fill the caches for the warm rows
    citations()
    baseline = per_url_us(bare_lookup, len(urls), args.repeat)
    rows = [
        ("bare tldextract lookup (baseline)", baseline),
        ("normalize_url + registrable_domain, warm", per_url_us(ours, len(urls), args.repeat)),
        (
            "normalize_url + registrable_domain, cold",
            per_url_us(ours, len(urls), args.repeat, before=clear_host_caches),
        ),
        ("make_citation (whole build), warm", per_url_us(citations, len(urls), args.repeat)),
    ]

    python = sys.version.split()[0]
    print(f"{len(urls)} recorded URLs, median of {args.repeat} passes, Python {python}")
    print(f"{'operation':<44} {'us/URL':>8} {'x bare':>7}")
    print("-" * 61)
    for name, value in rows:
        print(f"{name:<44} {value:>8.2f} {value / baseline:>6.2f}x")
    print(load_line())
    worst = max(rows[1][1], rows[2][1]) / baseline
    met = target("citations: normalize + domain (worse of warm, cold) / bare", worst, TARGET_RATIO)
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
