"""Run ``grounding-router ARGS`` in this process, then write its peak resident set size.

``python peak_rss.py FILE ARGS...``: FILE gets the process's own peak RSS in KiB
(``getrusage(RUSAGE_SELF).ru_maxrss``, Linux's unit), every thread of it counted and no other
process: a Ray driver that joins a running cluster starts none of Ray's daemons or workers.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

from router.cli import main


def run(report: str, argv: list[str]) -> int:
    code = main(argv)
    Path(report).write_text(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\n")
    return code


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[2:]))
