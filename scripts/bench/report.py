"""The HTML report at batch scale: file size, time to write, time until the page is usable.

Writes the report of a batch output of ``--rows`` rows (answers with attributions, verified and
not, and failures, over four vendors: tests/support/report_samples.py), then opens it in
Debian's headless Chromium with the network off (tests/support/chromium.py) and reads the
page's own ``report-ready`` mark: the time from navigation until its first page of rows is
drawn and its filters answer. The baseline, measured in the same run, is the same mark on the
report of a single row, so the ratio shows what the 10,000 rows add to opening a report at
all. A vendor filter change is timed in the page too.

    .venv/bin/python scripts/bench/report.py [--rows 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))  # the browser driver and sample rows of the test suite

from targets import load_line, median, target  # noqa: E402

from router.render.html import write_report_file  # noqa: E402
from support.chromium import CHROMIUM, MISSING_CHROMIUM, Page, chromium_page  # noqa: E402
from support.report_samples import batch_rows  # noqa: E402

READY_LIMIT_S = 3.0
WRITE_LIMIT_S = 30.0
RATIO_LIMIT = 40.0


def _ready_s(page: Page, path: Path) -> float:
    page.open(path)
    marks = page.evaluate("performance.getEntriesByName('report-ready').map(m => m.startTime)")
    return float(marks[0]) / 1000


def _filter_s(page: Page) -> float:
    return (
        float(
            page.evaluate(
                """(() => { const select = document.getElementById('filter-vendor');
            const start = performance.now(); select.value = 'vertex';
            select.dispatchEvent(new Event('change')); const took = performance.now() - start;
            select.value = ''; select.dispatchEvent(new Event('change')); return took; })()"""
            )
        )
        / 1000
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if CHROMIUM is None:
        print(MISSING_CHROMIUM, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="report-bench-") as folder:
        work = Path(folder)
        source = work / "output.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for row in batch_rows(args.rows):
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        source_bytes = source.stat().st_size
        report = work / "report.html"
        writes = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            write_report_file(source, report)
            writes.append(time.perf_counter() - started)
        size = report.stat().st_size
        one_row = work / "one_row.jsonl"
        one_row.write_text(json.dumps(batch_rows(1)[0]) + "\n", encoding="utf-8")
        baseline = work / "one_row.html"
        write_report_file(one_row, baseline)
        with chromium_page() as page:
            ready = [_ready_s(page, report) for _ in range(args.rounds)]
            filters = [_filter_s(page) for _ in range(args.rounds)]
            errors = list(page.errors)
            single = [_ready_s(page, baseline) for _ in range(args.rounds)]
    print(f"report of {args.rows} rows; {load_line()}")
    print(f"{'input JSONL':32} {source_bytes / 1e6:>10.2f} MB")
    print(f"{'report file':32} {size / 1e6:>10.2f} MB")
    print(f"{'time to write (median)':32} {median(writes):>10.2f} s   rounds {_shown(writes)}")
    print(f"{'page usable (median)':32} {median(ready):>10.3f} s   rounds {_shown(ready)}")
    print(
        f"{'baseline: 1-row report usable':32} {median(single):>10.3f} s   rounds {_shown(single)}"
    )
    print(f"{'vendor filter change (median)':32} {median(filters):>10.3f} s")
    print(f"{'console errors':32} {len(errors):>12}")
    ok = target(
        f"report {args.rows} rows: page usable in Chromium", median(ready), READY_LIMIT_S, " s"
    )
    ok &= target(f"report {args.rows} rows: time to write", median(writes), WRITE_LIMIT_S, " s")
    ok &= target(
        f"report {args.rows} rows: usable / 1-row report",
        median(ready) / median(single),
        RATIO_LIMIT,
    )
    return 0 if ok and not errors else 1


def _shown(values: list[float]) -> str:
    return ", ".join(f"{value:.3f}" for value in values)


if __name__ == "__main__":
    sys.exit(main())
