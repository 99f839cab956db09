"""``grounding-router extract``: a stored reply (JSON or SSE) read as ``route`` would show it."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from adapters.registry import vendors
from router.commands.exit_codes import ExitCode

__all__ = ["register"]

_DESCRIPTION = """\
Read a stored, recorded or logged provider reply and print its answer, grounding evidence and
citations as `route` prints them (or the whole response as JSON with --json). FILE may hold a
reply body (JSON), a stream (an SSE text, JSON lines, or a JSON array of chunks), or be '-' for
stdin. What could not be read is printed as warnings; a reply that yields nothing exits 6.
The limits are route's: a FILE larger than GROUNDING_ROUTER_MAX_REPLY_BYTES is refused (exit
6; it is read in pieces and never past the limit, so /dev/zero or a FIFO ends there too), and
past GROUNDING_ROUTER_MAX_CITATIONS sources the rest are cut, with a warning.

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
    parser.set_defaults(run=run)


_PIECE = 1 << 20


class _TooLarge(Exception):
    """The file holds more than the limit."""


def run(args: argparse.Namespace) -> int:
    """Read the file, extract the reply, print it; return the exit code."""
    from router.commands.render import print_error, print_response
    from router.errors import ResponseParseError
    from router.extraction import extract, reply_too_large

    limit: int = args.settings.max_reply_bytes
    try:
        reply = _read_at_most(args.file, limit)
    except _TooLarge:
        print_error(reply_too_large(limit, args.vendor), as_json=args.json)
        return ExitCode.RESPONSE_UNUSABLE
    except OSError as exc:
        print(f"grounding-router extract: cannot read {args.file}: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        response = extract(args.vendor, reply, settings=args.settings)
    except ResponseParseError as error:
        print_error(error, as_json=args.json)
        return ExitCode.RESPONSE_UNUSABLE
    print_response(response, as_json=args.json)
    if not response.content and not response.citations:
        return ExitCode.RESPONSE_UNUSABLE
    return ExitCode.OK


def _read_at_most(name: str, limit: int) -> bytes:
    """The bytes of file ``name`` ('-': stdin), read in pieces; ``_TooLarge`` past ``limit``.

    A regular file's size is checked before anything is read; a device, FIFO or stdin is read
    up to one byte past the limit, never further.
    """
    if name == "-":
        return _read_stream(sys.stdin.buffer, limit)
    with Path(name).open("rb") as stream:
        status = os.fstat(stream.fileno())
        if stat.S_ISREG(status.st_mode) and status.st_size > limit:
            raise _TooLarge
        return _read_stream(stream, limit)


def _read_stream(stream: BinaryIO, limit: int) -> bytes:
    pieces: list[bytes] = []
    total = 0
    while piece := stream.read(min(_PIECE, limit + 1 - total)):
        pieces.append(piece)
        total += len(piece)
        if total > limit:
            raise _TooLarge
    return b"".join(pieces)
