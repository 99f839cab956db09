"""What claim-level verification costs beside extraction, per recorded reply.

For every recorded reply in tests/data/recorded (each vendor's own kind of reply; a stream as
its raw SSE text, a body as its JSON text), it times, interleaved call by call so that machine
noise falls on both alike:

- extract: ``router.extract(vendor, text)``, the offline entry a pipeline of stored replies
  calls (decoding, citations, assembly);
- verify: ``router.verify(response)`` of that response with the default ``lexical`` scorer
  (segmentation, pairing each claim with its attributions, stemming and scoring).

Each figure is the median of single timed calls, after one untimed pass that loads the
segmenter and the stemmer (a one-time cost of the process). Both are timed in CPU time of this
process (``time.process_time_ns``), the same number of calls each, so that other work on a
shared machine does not land on either. The text is read once, outside the timed region; each
round extracts it afresh and verifies that response.

What stays warm, and what does not: the scorer's memo of content words (one entry per claim or
passage text) is cleared before each timed verify: a new reply's claims are never in it, and a
warm memo would time verify on a reply it has already read. The scorer's process-wide, bounded
memo of word -> stem stays warm, as vocabulary recurs across replies; extract is measured in the
same state, since its own process-wide caches (hosts, host facts and domain parts, the lru
caches of router.citations) stay warm across calls too and are not cleared here either.

The table gives each reply's claims, both medians, verify's share of extract, the floor's share
and claims verified per second. Target: on every recorded reply, verify adds at most 25% to
extract alone. The floor is what verify could not drop as it is built, timed the same way: the
segmenter's own call (``sentencex.segment`` on the answer) and the reply's report ``Claim``
objects, built from their fields' columns as verify builds them; its largest share is printed as
the bound of the target.

    .venv/bin/python scripts/bench/verify.py [--samples N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from time import process_time_ns
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import sentencex  # noqa: E402
from targets import bound, load_line, target  # noqa: E402

from router import extract, verify  # noqa: E402
from router.grounding.report import claims_of  # noqa: E402
from router.grounding.scorers import content_words  # noqa: E402
from support.recorded import files_for_vendor  # noqa: E402

SHARE_TARGET = 0.25
# Gemini API replies are the Vertex kind: each body is timed once, as Vertex.
VENDORS = ("openai", "vertex", "anthropic", "perplexity", "openrouter")
WARM = (
    "warm across calls: the scorer's word -> stem memo, and extract's own host and domain caches;"
    " cleared before each timed verify: the content-word memo"
)


class Row(NamedTuple):
    vendor: str
    reply: str
    claims: int
    extract_us: float
    verify_us: float
    floor_us: float

    @property
    def share(self) -> float:
        return self.verify_us / self.extract_us

    @property
    def floor_share(self) -> float:
        return self.floor_us / self.extract_us


def measure(vendor: str, path: Path, samples: int) -> Row:
    text = path.read_text(encoding="utf-8")
    response = extract(vendor, text)
    claims = verify(response).claims  # the untimed pass: segmenter and stemmer loaded
    content = response.content
    starts = [claim.start for claim in claims]
    ends = [claim.end for claim in claims]
    texts = [claim.text for claim in claims]
    verdicts = [claim.verdict for claim in claims]
    supports = [claim.support for claim in claims]
    extract_ns: list[int] = []
    verify_ns: list[int] = []
    floor_ns: list[int] = []
    for _ in range(samples):
        started = process_time_ns()
        response = extract(vendor, text)
        extract_ns.append(process_time_ns() - started)
        content_words.cache_clear()
        started = process_time_ns()
        verify(response)
        verify_ns.append(process_time_ns() - started)
        started = process_time_ns()
        if content.strip():
            sentencex.segment("en", content)
        claims_of(
            starts,
            ends,
            texts,
            verdicts=verdicts,
            attributions=[claim.attributions for claim in claims],
            supports=supports,
        )
        floor_ns.append(process_time_ns() - started)
    return Row(
        vendor,
        path.name,
        len(claims),
        statistics.median(extract_ns) / 1000,
        statistics.median(verify_ns) / 1000,
        statistics.median(floor_ns) / 1000,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=40, help="timed calls per reply")
    args = parser.parse_args()
    rows = [
        measure(vendor, path, args.samples)
        for vendor in VENDORS
        for path in files_for_vendor(vendor)
    ]
    print(f"verify beside extract, CPU time, median of {args.samples} calls each; {load_line()}")
    print(WARM)
    print(
        f"{'vendor':10} {'reply':60} {'claims':>6} {'extract':>10} {'verify':>10} {'share':>7}"
        f" {'floor':>6}"
    )
    for row in rows:
        print(
            f"{row.vendor:10} {row.reply[:60]:60} {row.claims:>6} {row.extract_us:>8.0f}us "
            f"{row.verify_us:>8.0f}us {row.share:>6.0%} {row.floor_share:>6.0%}"
        )
    claims = sum(row.claims for row in rows)
    seconds = sum(row.verify_us for row in rows) / 1e6
    rate = claims / seconds
    print(f"claims verified per second: {rate:,.0f} ({claims} claims in {len(rows)} replies)")
    worst = max(rows, key=lambda row: row.share)
    print(f"largest share: {worst.share:.1%} ({worst.vendor} {worst.reply})")
    lowest = max(rows, key=lambda row: row.floor_share)
    print(
        f"largest floor share (segmenter call and claim objects): {lowest.floor_share:.1%}"
        f" ({lowest.vendor} {lowest.reply})"
    )
    met = target("verify over extract, largest share of any reply", worst.share, SHARE_TARGET)
    bound(
        "verify over extract, floor: segmenter call and claim objects, largest share",
        lowest.floor_share,
        SHARE_TARGET,
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
