"""``grounding-router extract``: a stored reply (JSON or SSE) read as ``route`` would show it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from adapters.registry import vendors
from router.commands.exit_codes import ExitCode

__all__ = ["register"]

_DESCRIPTION = """\
Read a stored, recorded or logged provider reply and print its answer, grounding evidence and
citations as `route` prints them (or the whole response as JSON with --json). FILE may hold a
reply body (JSON), a stream (an SSE text, JSON lines, or a JSON array of chunks), or be '-' for
stdin. What could not be read is printed as warnings; a reply that yields nothing exits 6.

examples:
  grounding-router extract reply.json --vendor openai
  grounding-router extract stream.sse.txt --vendor vertex --json"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``extract`` subcommand."""
    parser = subparsers.add_parser(
        "extract",
        help="read a stored reply (JSON or SSE) and print its answer and citations",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", metavar="FILE", help="the stored reply ('-': stdin)")
    parser.add_argument(
        "--vendor", choices=vendors(), required=True, help="the provider that sent the reply"
    )
    parser.add_argument("--json", action="store_true", help="print the full LLMResponse as JSON")
    from router.commands.render import add_view_options

    add_view_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Read the file, extract the reply, print it; return the exit code."""
    from router.commands.render import link_choice, print_response, response_rows, write_html
    from router.extraction import extract

    try:
        reply = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        print(f"grounding-router extract: cannot read {args.file}: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    response = extract(args.vendor, reply)
    print_response(response, as_json=args.json, links=link_choice(args))
    write_html(args.html, response_rows(response), title=f"grounding report: {args.file}")
    if not response.content and not response.citations:
        return ExitCode.RESPONSE_UNUSABLE
    return ExitCode.OK
