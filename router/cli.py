"""The ``grounding-router`` command: demo, route, batch, als, emulator.

Exit codes are listed in :class:`router.commands.exit_codes.ExitCode` and in the README.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from router import __version__
from router.commands import emulator as emulator_command
from router.commands.exit_codes import ExitCode
from router.commands.pending import register_pending

__all__ = ["build_parser", "main"]

_EPILOG = """\
exit codes: 0 ok, 1 unexpected failure, 2 bad input, 3 REQUIRED grounding failed,
4 provider error, 5 configuration error, 6 unusable provider reply, 130 interrupted.
Configuration comes from the environment and .env (see the README)."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, one subparser per subcommand."""
    parser = argparse.ArgumentParser(
        prog="grounding-router",
        description=(
            "Grounded answers from OpenAI web search and Vertex AI Google Search, with uniform "
            "citations and fail-closed REQUIRED grounding."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--log-json", action="store_true", help="write log events as JSON lines on stderr"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    register_pending(
        subparsers,
        "demo",
        "route sample requests through both adapters against the built-in emulator",
        "Starts the built-in provider emulator and routes sample requests through both "
        "adapters (AUTO, REQUIRED, grounded JSON, a REQUIRED failure), printing answers and "
        "citations.",
    )
    register_pending(
        subparsers,
        "route",
        "send one request and print the answer with its citations",
        "Builds one request from flags or a JSON file, routes it, and prints the answer and "
        "a citations table (or the full response as JSON).",
    )
    register_pending(
        subparsers,
        "batch",
        "run a JSONL file of requests with REQUIRED grounding at volume",
        "Runs every request of a JSONL file concurrently and writes one result line per "
        "request, resumable, with progress and a summary.",
    )
    register_pending(
        subparsers,
        "als",
        "Ambient Location Signals report over batch results",
        "Counts TLDs and domains of the citations in a batch output file, per vendor, model "
        "and country.",
    )
    emulator_command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except KeyboardInterrupt:
        print("grounding-router: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
