"""``grounding-router batch IN.jsonl -o OUT.jsonl``: run a file of requests at volume."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path

from router.batch.stats import BatchSummary
from router.commands.exit_codes import ExitCode

__all__ = ["register"]

_DESCRIPTION = """\
Run every request of a JSONL file (one LLMRequest object per line) and write one result line per
request to OUT: {"request_id", "ok", "line", "request", "response"} or, for a failure of any kind
(REQUIRED grounding not met, provider error, bad input line), {..., "ok": false, "error": {"type",
"reason", "message", "status_code", ...}}. Any line, however malformed, costs exactly one row.
Lines without a request_id, or with a blank one, get one derived from their line number and
content; a repeated id's row is renamed <id>#line<N>. Rows are written and flushed as results
arrive; --resume skips the request_ids already in OUT, so an interrupted or killed run can be
finished without duplicates. OUT must be a regular file and not the input; when it cannot be
written (disk full, read-only), the run stops with exit code 2, every row written kept.
Ctrl-C (or SIGTERM) stops feeding new requests, lets those in flight finish for --grace-s
seconds, flushes, prints the summary and exits 130; a second Ctrl-C stops at once."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``batch`` subcommand."""
    parser = subparsers.add_parser(
        "batch",
        help="run a JSONL file of requests with REQUIRED grounding at volume",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", type=Path, metavar="IN.jsonl", help="requests, one per line")
    parser.add_argument(
        "-o", "--output", type=Path, required=True, metavar="OUT.jsonl", help="result rows"
    )
    parser.add_argument(
        "--concurrency", type=_positive_int, default=16, help="requests in flight (default 16)"
    )
    parser.add_argument(
        "--max-rps",
        type=_positive_float,
        default=None,
        metavar="R",
        help="at most R requests per second per vendor (default: no limit)",
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        help="worker processes, each with its own event loop and SDK clients (default 1); "
        "the SDKs cost CPU per call, so a second core nearly doubles throughput",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true", help="continue OUT, skipping ids in it")
    mode.add_argument(
        "--overwrite", action="store_true", help="empty an existing OUT once the run starts"
    )
    parser.add_argument(
        "--summary-json", type=Path, metavar="FILE", help="also write the summary as JSON"
    )
    parser.add_argument(
        "--grace-s",
        type=float,
        default=10.0,
        help="on Ctrl-C, seconds to let in-flight requests finish (default 10)",
    )
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", dest="progress", action="store_true", default=None, help="always draw"
    )
    progress.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never draw the bar"
    )
    parser.set_defaults(run=run)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Run the batch with signal handling; print the summary; return the exit code."""
    from router.commands.progress import BatchProgress
    from router.commands.summary_table import print_summary

    try:
        with BatchProgress(enabled=args.progress) as progress:
            summary = asyncio.run(_run(args, progress))
    except (OSError, ValueError) as exc:
        # A missing or unreadable input, an output refused, full or read-only (the rows written
        # before are kept, and the message says so): all the files' fault, none a crash.
        print(f"grounding-router batch: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except asyncio.CancelledError:
        print(
            "grounding-router batch: stopped at once; rows written so far are complete, "
            "run again with --resume to finish",
            file=sys.stderr,
        )
        return ExitCode.INTERRUPTED
    print_summary(summary)
    if args.summary_json:
        args.summary_json.write_text(json.dumps(summary.to_dict(), indent=2) + "\n")
    return ExitCode.INTERRUPTED if summary.interrupted else ExitCode.OK


async def _run(args: argparse.Namespace, progress: object) -> BatchSummary:
    from router.batch import arun_batch

    stop = asyncio.Event()
    current = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def on_signal() -> None:
        if stop.is_set() and current is not None:
            current.cancel()  # the second signal: stop at once
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal)
    try:
        return await arun_batch(
            args.input,
            args.output,
            settings=args.settings,
            concurrency=args.concurrency,
            max_rps=args.max_rps,
            resume=args.resume,
            overwrite=args.overwrite,
            stop=stop,
            grace_s=args.grace_s,
            on_progress=progress,  # type: ignore[arg-type]
            workers=args.workers,
        )
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
