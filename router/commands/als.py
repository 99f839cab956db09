"""``grounding-router als OUT.jsonl``: the ALS report over a batch output file or shards."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from router.commands.exit_codes import ExitCode
from router.schema import SchemaVersionError

if TYPE_CHECKING:
    from als.report import ALSReport

__all__ = ["register"]

_DESCRIPTION = """\
ALS (Ambient Location Signals) reads where grounded answers get their sources. Over the rows of
a batch output file (grounding-router batch -o OUT.jsonl), grouped by vendor, model and the
requester's user_location.country, it counts per group: answered and failed rows, citations,
distinct domains, the top public suffixes (TLDs such as com, co.uk, de) and registrable domains
with their shares, the share of citations on the requester's own country-code TLD (DE -> .de,
GB -> .uk), and the redirect-only share: citations whose true source is unknown because only a
redirect link was returned (Vertex's vertexaisearch.cloud.google.com). Those are counted apart
and never in the TLD or domain shares. Failed rows are listed per group by error type, so
REQUIRED grounding failures stay visible.

With --overlap it reports instead how far providers cite the same sources, over the fan-out
rows of the batch (lines with "vendors": one question, several providers): per pair of
providers, the questions both were asked and both answered, the mean per-question Jaccard
overlap of their cited domains and of their cited URLs, and the Jaccard overlap of all the
domains each cited; --png then draws it as a heat map. Outside --overlap, each provider's
outcome in a fan-out row counts as a row of its own vendor.

Google's terms for grounded results restrict automated collection and analysis of grounded
results: read the README section "Google's terms for grounded results" before running this over
Vertex output.

examples:
  grounding-router als out.jsonl
  grounding-router als out.jsonl --by vendor,country --top 10
  grounding-router als out.jsonl --json > als.json
  grounding-router als out.jsonl --cost-per-source
  grounding-router als out.jsonl --overlap --png overlap.png
  grounding-router als shards/            (the -o directory of batch --engine ray)
  grounding-router als out.jsonl --png als.png   (needs pip install 'grounding-router[charts]')"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``als`` subcommand."""
    parser = subparsers.add_parser(
        "als",
        help="Ambient Location Signals: TLDs and domains cited, per vendor, model and country",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "input",
        type=Path,
        metavar="OUT.jsonl",
        help="a batch output file, or the directory of shards of batch --engine ray (- for stdin)",
    )
    parser.add_argument(
        "--by",
        type=_group_keys,
        default=None,
        metavar="KEYS",
        help="comma-separated group keys among vendor, model, country, or 'all' for one group "
        "(default vendor,model,country)",
    )
    parser.add_argument(
        "--top",
        type=_positive_int,
        default=5,
        metavar="N",
        help="TLDs and domains listed, and TLDs coloured in the chart (default 5)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--cost-per-source",
        action="store_true",
        help="also report what the answers cost per cited source: each answer's estimated "
        "cost split evenly over the sources it cites, per group and per domain",
    )
    parser.add_argument(
        "--overlap",
        action="store_true",
        help="report how far providers cite the same sources over the batch's fan-out rows, "
        "per pair of providers (instead of the per-group report)",
    )
    parser.add_argument(
        "--png",
        type=Path,
        metavar="FILE",
        help="also draw the TLD share per group as a PNG bar chart, or with --overlap the "
        "overlap as a heat map (needs the charts extra)",
    )
    parser.set_defaults(run=run)


def _group_keys(text: str) -> tuple[str, ...]:
    from als.report import GROUP_KEYS

    if text.strip().lower() == "all":
        return ()
    keys = tuple(part.strip().lower() for part in text.split(",") if part.strip())
    unknown = [key for key in keys if key not in GROUP_KEYS]
    if unknown or not keys:
        raise argparse.ArgumentTypeError(
            f"{text!r}: use comma-separated keys among {', '.join(GROUP_KEYS)}, or 'all'"
        )
    if len(set(keys)) != len(keys):
        raise argparse.ArgumentTypeError(f"{text!r}: a key is repeated")
    return keys


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Build the report, print it (table or JSON), draw the chart; return the exit code."""
    from als.report import DEFAULT_GROUP_BY, build_report
    from router.commands.file_args import stdin_or_path

    try:
        with stdin_or_path(args.input) as source:
            report = build_report(source, by=DEFAULT_GROUP_BY if args.by is None else args.by)
    except OSError as exc:
        print(
            f"grounding-router als: cannot read {args.input}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    except SchemaVersionError as exc:
        print(f"grounding-router als: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if report.rows == 0 and report.unreadable_lines:
        print(
            f"grounding-router als: {args.input} holds no batch output rows "
            f"({report.unreadable_lines} unreadable lines); give the -o file of "
            "grounding-router batch",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    if args.png is not None:
        code = _write_chart(report, args.png, args.top, overlap=args.overlap)
        if code != ExitCode.OK:
            return code
    if args.overlap:
        _print_overlap(report, as_json=args.json)
    elif args.json:
        from router.text.terminal import json_for_terminal

        text = json.dumps(
            report.to_dict(top=args.top, cost=args.cost_per_source), indent=2, ensure_ascii=False
        )
        print(json_for_terminal(text))
    else:
        from als.table import print_report

        print_report(report, top=args.top, cost=args.cost_per_source)
    return ExitCode.OK


def _print_overlap(report: ALSReport, *, as_json: bool) -> None:
    if as_json:
        from router.text.terminal import json_for_terminal

        text = json.dumps(report.overlap.to_dict(), indent=2, ensure_ascii=False)
        print(json_for_terminal(text))
    else:
        from als.overlap_table import print_overlap

        print_overlap(report.overlap)


def _write_chart(report: ALSReport, path: Path, top: int, *, overlap: bool) -> ExitCode:
    from als.chart import ChartsUnavailableError, write_chart
    from als.heatmap import write_heatmap

    try:
        if overlap:
            write_heatmap(report.overlap, path)
        else:
            write_chart(report, path, top=top)
    except ChartsUnavailableError as exc:
        print(f"grounding-router als: {exc}", file=sys.stderr)
        return ExitCode.NOT_AVAILABLE
    except OSError as exc:
        print(f"grounding-router als: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    print(f"grounding-router als: chart written to {path}", file=sys.stderr)
    return ExitCode.OK
