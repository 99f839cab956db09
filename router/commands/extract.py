"""``grounding-router extract``: a stored reply (JSON or SSE) read as ``route`` would show it."""

from __future__ import annotations

import argparse
import logging
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from adapters.registry import vendors
from router.commands.exit_codes import ExitCode
from router.commands.grounding_flags import add_verify_flag

if TYPE_CHECKING:
    from router.settings import RouterSettings
    from router.types import LLMResponse

__all__ = ["register"]

_DESCRIPTION = """\
Read a stored, recorded or logged provider reply and print its answer, grounding evidence and
citations as `route` prints them (or the whole response as JSON with --json). FILE may hold a
reply body (JSON), a stream (an SSE text, JSON lines, or a JSON array of chunks), or be '-' for
stdin. Without --vendor, the provider is guessed from the body (the one whose reader finds the
most in it; said on stderr). What could not be read is printed as warnings; a reply that yields
nothing exits 6, naming the provider it reads as when that is another.
The limits are route's: a FILE larger than GROUNDING_ROUTER_MAX_REPLY_BYTES is refused (exit
6; it is read in pieces and never past the limit, so /dev/zero or a FIFO ends there too), and
past GROUNDING_ROUTER_MAX_CITATIONS sources the rest are cut, with a warning.

examples:
  grounding-router extract reply.json
  grounding-router extract stream.sse.txt --vendor vertex --json
  grounding-router extract reply.json --vendor anthropic --verify"""


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
        "--vendor",
        choices=vendors(),
        help="the provider that sent the reply (default: guessed from the body)",
    )
    parser.add_argument("--json", action="store_true", help="print the full LLMResponse as JSON")
    add_verify_flag(parser)
    from router.commands.render import add_view_options

    add_view_options(parser)
    parser.set_defaults(run=run)


_PIECE = 1 << 20


class _TooLarge(Exception):
    """The file holds more than the limit."""


def run(args: argparse.Namespace) -> int:
    """Read the file, extract the reply, print it; return the exit code."""
    from router.commands.render import (
        link_choice,
        print_error,
        print_response,
        response_rows,
        write_html,
    )
    from router.errors import ResponseParseError
    from router.extraction import reply_too_large

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
        response = _extracted(args, reply)
    except ResponseParseError as error:
        print_error(error, as_json=args.json)
        return ExitCode.RESPONSE_UNUSABLE
    if args.verify:
        from router.grounding.verification import verify

        response.grounding = verify(response)
    print_response(response, as_json=args.json, links=link_choice(args))
    write_html(args.html, response_rows(response), title=f"grounding report: {args.file}")
    if not response.content and not response.citations:
        return ExitCode.RESPONSE_UNUSABLE
    return ExitCode.OK


def _extracted(args: argparse.Namespace, reply: bytes) -> LLMResponse:
    """The reply read as --vendor's, or as the vendor whose reader finds most in it; stderr
    says which was guessed, or which vendor a --vendor that read nothing should have been."""
    from router.extraction import extract

    if args.vendor is None:
        readings = _readings(reply, args.settings)
        vendor = readings[0][0]
        response = extract(vendor, reply, settings=args.settings)  # again, with its warnings
        if _found(response) > _NOTHING:
            alike = [other for other, seen in readings[1:] if _found(seen) == _found(response)]
            also = f"; {', '.join(alike)} read it alike" if alike else ""
            print(
                f"grounding-router extract: read as a {vendor} reply{also} (--vendor to choose)",
                file=sys.stderr,
            )
        return response
    response = extract(args.vendor, reply, settings=args.settings)
    if _found(response) == _NOTHING:
        likely, seen = _readings(reply, args.settings)[0]
        if _found(seen) > _NOTHING:
            print(
                f"grounding-router extract: a {args.vendor} reader finds nothing in this reply; "
                f"it reads as a {likely} reply (--vendor {likely})",
                file=sys.stderr,
            )
    return response


_NOTHING = (0, 0)


def _found(response: LLMResponse) -> tuple[int, int]:
    """How much a reading found: citations first, then the answer's length."""
    return len(response.citations), len(response.content)


def _readings(reply: bytes, settings: RouterSettings) -> list[tuple[str, LLMResponse]]:
    """The reply read by every provider's reader, the one that found most first (registry
    order among equals)."""
    from router.extraction import extract

    # The other readers' complaints (an unknown price, no search found) are not the user's.
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        readings = [(vendor, extract(vendor, reply, settings=settings)) for vendor in vendors()]
    finally:
        logging.disable(previous)
    return sorted(readings, key=lambda reading: _found(reading[1]), reverse=True)


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
