"""Replies that arrive too slowly to finish but never slowly enough to trip a read timeout.

Each trickle fault writes the HTTP reply itself, straight onto the connection, one small piece
every ``TICK_S`` seconds for the fault's duration (its argument, in seconds), then the real
reply, so a client that only bounds each read waits the whole duration and then gets its
answer, while a client with a total deadline gives up on time:

=====================  ===========================================================================
``trickle_headers``    the status line, then one byte of filler header lines per tick
``trickle_body``       complete headers with a ``Content-Length``, then one byte of the body per
                       tick: JSON whitespace (blank lines for streams) before the real body
``trickle_chunks``     ``Transfer-Encoding: chunked``, the chunk framing itself written a byte per
                       tick (each chunk carries one byte of whitespace), then the body in one chunk
``continue_flood``     ``100 Continue`` interim responses, one per tick, then the real reply
=====================  ===========================================================================

The connection is closed after the reply (``Connection: close``).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from aiohttp import web

from router.emulator.faults import FaultKind, FaultSpec
from router.emulator.reply import SSE_CONTENT_TYPE, Reply

__all__ = ["DEFAULT_TRICKLE_S", "TICK_S", "TRICKLE_KINDS", "trickle"]

TICK_S = 0.05
DEFAULT_TRICKLE_S = 60.0
TRICKLE_KINDS: frozenset[FaultKind] = frozenset(
    {"trickle_headers", "trickle_body", "trickle_chunks", "continue_flood"}
)

Pause = Callable[[float], Awaitable[bool]]


async def trickle(
    request: web.BaseRequest,
    fault: FaultSpec,
    payload: Reply | list[bytes],
    headers: dict[str, str],
    pause: Pause,
) -> web.Response:
    """Send ``payload`` the way ``fault`` says, then close the connection."""
    transport = request.transport
    reply = payload if isinstance(payload, Reply) else _stream_reply(payload)
    ticks = max(1, math.ceil((fault.arg if fault.arg is not None else DEFAULT_TRICKLE_S) / TICK_S))
    stream = reply.content_type.startswith(SSE_CONTENT_TYPE)
    filler = b"\n" if stream else b" "
    kind = fault.kind

    async def drip(pieces: list[bytes]) -> bool:
        """Write each piece after a tick; False when the client left or the emulator stops."""
        for piece in pieces:
            if transport is None or transport.is_closing() or await pause(TICK_S):
                return False
            transport.write(piece)
        return True

    head = _status_line(reply.status)
    fields = {"Content-Type": reply.content_type, **reply.headers, **headers, "Connection": "close"}
    if transport is None:
        return _closed(request)
    if kind == "continue_flood":
        if await drip([b"HTTP/1.1 100 Continue\r\n\r\n"] * ticks):
            transport.write(_head(head, fields, len(reply.body)) + reply.body)
    elif kind == "trickle_headers":
        transport.write(head)
        # one byte at a time of ever new short header lines (a long line would hit line limits)
        filler_lines = b"".join(b"X-Trickle-%d: .\r\n" % n for n in range(ticks))
        if await drip([bytes([byte]) for byte in filler_lines[:ticks]]):
            done = filler_lines[ticks:] if len(filler_lines) > ticks else b""
            transport.write(done + _fields(fields, len(reply.body)) + b"\r\n" + reply.body)
    elif kind == "trickle_body":
        body = filler * ticks + reply.body
        transport.write(_head(head, fields, len(body)))
        if await drip([filler] * ticks):
            transport.write(reply.body)
    else:  # trickle_chunks
        transport.write(_head(head, {**fields, "Transfer-Encoding": "chunked"}, None))
        framing = b"".join(b"%x\r\n%s\r\n" % (len(filler), filler) for _ in range(ticks))
        if await drip([bytes([byte]) for byte in framing[:ticks]]):
            rest = framing[ticks:]
            body = b"%x\r\n%s\r\n" % (len(reply.body), reply.body) if reply.body else b""
            transport.write(rest + body + b"0\r\n\r\n")
    return _closed(request)


def _status_line(status: int) -> bytes:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    return f"HTTP/1.1 {status} {phrase}\r\n".encode()


def _fields(fields: dict[str, str], length: int | None) -> bytes:
    lines = [f"{name}: {value}\r\n" for name, value in fields.items()]
    if length is not None:
        lines.append(f"Content-Length: {length}\r\n")
    return "".join(lines).encode("latin-1")


def _head(status_line: bytes, fields: dict[str, str], length: int | None) -> bytes:
    return status_line + _fields(fields, length) + b"\r\n"


def _stream_reply(frames: list[bytes]) -> Reply:
    return Reply(200, b"".join(frames), content_type=SSE_CONTENT_TYPE)


def _closed(request: web.BaseRequest) -> web.Response:
    """Close the connection; the Response returned is never sent (the reply was written raw)."""
    if request.transport is not None:
        request.transport.close()
    return web.Response(status=204)
