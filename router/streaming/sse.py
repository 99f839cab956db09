"""Server-sent events read from text, whole or in pieces (the WHATWG event-stream format).

Lines end in LF, CRLF or CR; a blank line ends an event; ``data:`` lines join with LF; one
space after the colon is dropped; ``event:`` names the event; comment lines (``:``) and other
fields are ignored. Pieces may cut anywhere, a line ending included: :class:`SSEDecoder` gives
the same events however the text is split. Used to read stored streams (``extract``); live
streams are decoded by the provider SDKs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SSEDecoder", "ServerSentEvent", "parse_sse"]

# Only these end a line (str.splitlines would also cut at form feeds, U+2028 and the like).
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One event: its name (``event:``, or None) and its data lines joined."""

    event: str | None
    data: str


class SSEDecoder:
    """Feed text pieces with :meth:`feed`, then :meth:`close`; each returns complete events."""

    __slots__ = ("_buffer", "_cr", "_data", "_event", "lines")

    def __init__(self) -> None:
        self._buffer = ""
        self._cr = False  # the last piece ended in CR: a LF starting the next one belongs to it
        self._data: list[str] = []
        self._event: str | None = None
        self.lines = 0
        """Lines read so far."""

    def feed(self, piece: str) -> list[ServerSentEvent]:
        """The events that ``piece`` completes."""
        if self._cr and piece.startswith("\n"):
            piece = piece[1:]
        self._cr = piece.endswith("\r")
        lines = _LINE_END.split(self._buffer + piece)
        self._buffer = lines.pop()  # the text after the last line end: not a line yet
        events: list[ServerSentEvent] = []
        for line in lines:
            self._line(line, events)
        return events

    def close(self) -> list[ServerSentEvent]:
        """The end of the text: a last event without its blank line still counts."""
        events: list[ServerSentEvent] = []
        if self._buffer:
            self._line(self._buffer, events)
            self._buffer = ""
        self._line("", events)
        return events

    def _line(self, line: str, events: list[ServerSentEvent]) -> None:
        self.lines += 1
        if not line:
            if self._data:
                events.append(ServerSentEvent(self._event, "\n".join(self._data)))
            self._data = []
            self._event = None
            return
        if line.startswith(":"):
            return
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value


def parse_sse(text: str) -> list[ServerSentEvent]:
    """Every event of a whole event-stream text."""
    decoder = SSEDecoder()
    return [*decoder.feed(text), *decoder.close()]
