"""``grounding-router report``: a saved output file turned into one self-contained HTML page."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from router.commands.exit_codes import ExitCode
from router.schema import SchemaVersionError

__all__ = ["register"]

_DESCRIPTION = """\
Read batch output (JSON lines), a saved `route --json-output` or `extract --json`, or a
`compare --json` file and write one HTML page that needs nothing else: every answer with its
cited passages highlighted (click one for its source, passage and verdict), the numbered sources
with their domains, redirect flags and cited/searched, the verification summary, failed rows
with their reason and, for several rows, an overview (counts by vendor, status and reason,
coverage, the ALS TLD chart, cost by vendor) with filters by vendor and status and a search box.

examples:
  grounding-router report results.jsonl -o report.html
  grounding-router route --vendor openai --model gpt-5 --grounded "..." --json-output > a.json
  grounding-router report a.json -o a.html"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``report`` subcommand."""
    parser = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report of batch, route, extract or compare output",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file", type=Path, metavar="FILE", help="the output file to show (- for stdin)"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="HTML",
        help="where to write the page (default: FILE with the suffix .html; - for stdout)",
    )
    parser.add_argument("--title", help="the page title (default: names FILE)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the report; 2 when FILE cannot be read or holds no rows."""

    from router.commands.file_args import stdin_or_path

    if str(args.file) == "-" and args.output is None:
        print(
            "grounding-router report: reading stdin, give the page's path with -o (- for stdout)",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    target: Path = args.output or args.file.with_suffix(".html")
    if str(target) != "-" and target.resolve() == args.file.resolve():
        print("grounding-router report: the output would overwrite FILE", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        with stdin_or_path(args.file) as source:
            counts, rows = _write(source, target, args.title)
    except OSError as exc:
        print(f"grounding-router report: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except SchemaVersionError as exc:
        print(f"grounding-router report: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    skipped = counts.unreadable_lines + counts.unknown_records
    if skipped:
        print(
            f"grounding-router report: skipped {counts.unreadable_lines} unreadable line(s) and "
            f"{counts.unknown_records} record(s) of no known shape",
            file=sys.stderr,
        )
    print(f"wrote {target}: {rows} row(s)", file=sys.stderr if str(target) == "-" else sys.stdout)
    if rows == 0:
        print(f"grounding-router report: {args.file} holds no answers or failures", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return ExitCode.OK


def _write(source: Path, target: Path, title: str | None) -> tuple[Any, int]:
    """Write the page to ``target``, or, for ``-``, to stdout."""
    from router.render.html import write_report_file

    if str(target) != "-":
        return write_report_file(source, target, title=title)
    with tempfile.TemporaryDirectory(prefix="grounding-router-") as folder:
        page = Path(folder) / "report.html"
        result = write_report_file(source, page, title=title)
        sys.stdout.write(page.read_text(encoding="utf-8"))
        sys.stdout.flush()
        return result
