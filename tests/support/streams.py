"""Recorded streams and the stream readers that read them, for the stream suites.

Which vendor reads a recorded stream is not written down anywhere: every registry row with a
stream reader is tried, and a reader that reaches the provider's last event reads it. A stream
that no reader completes must be listed, with the reason, in ``tests/data/streams_unread.json``;
so a provider package that adds its stream reader (and its recorded streams) is covered by the
stream suites without touching them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from adapters.registry import PROVIDERS
from router.extraction import offline_request
from router.streaming.accumulator import open_stream_reader
from router.streaming.events import CitationDelta, SearchStarted, StreamEvent, TextDelta
from router.types import Span
from support.recorded import RECORDED_DIR, load_events, recorded_files

__all__ = [
    "UNREAD",
    "ReadStream",
    "read_stream",
    "stream_cases",
    "stream_files",
]

UNREAD: dict[str, str] = json.loads(
    (RECORDED_DIR.parent / "streams_unread.json").read_text(encoding="utf-8")
)


def stream_files() -> list[Path]:
    """Every recorded stream: raw event streams and chunk lists."""
    return recorded_files("**/*.sse.txt", "**/*.chunks.jsonl")


def name_of(path: Path) -> str:
    """The file's path under the recorded directory, as the tables name it."""
    return path.relative_to(RECORDED_DIR).as_posix()


@dataclass
class ReadStream:
    """One stream read by one vendor's reader: the events, and what each had seen."""

    vendor: str
    events: list[StreamEvent] = field(default_factory=list)
    delivered_at: list[str] = field(default_factory=list)
    """The text delivered before each event (and including it, for a TextDelta)."""
    complete: bool = False
    result: Any = None

    @property
    def text(self) -> str:
        return "".join(event.text for event in self.events if isinstance(event, TextDelta))

    def latest_citations(self) -> list[Any]:
        latest: dict[str, Any] = {}
        from router.citations.build import citation_key

        for event in self.events:
            if isinstance(event, CitationDelta):
                latest[citation_key(event.citation)] = event.citation
        return sorted(latest.values(), key=lambda c: (c["rank"] is None, c["rank"] or 0))

    def searches(self) -> list[SearchStarted]:
        return [event for event in self.events if isinstance(event, SearchStarted)]

    def spans_with_text(self) -> list[tuple[Span, str]]:
        """Each CitationDelta span with the text delivered when it was sent."""
        found = []
        for event, delivered in zip(self.events, self.delivered_at, strict=True):
            if isinstance(event, CitationDelta):
                found.extend((span, delivered) for span in event.citation["spans"])
        return found


def read_stream(vendor: str, chunks: list[Any]) -> ReadStream:
    """Feed ``chunks`` to ``vendor``'s reader (for a default offline request)."""
    reader = open_stream_reader(vendor, offline_request(vendor))
    read = ReadStream(vendor)
    delivered = ""
    for chunk in chunks:
        for event in reader.feed(chunk):
            if isinstance(event, TextDelta):
                delivered += event.text
            read.events.append(event)
            read.delivered_at.append(delivered)
    read.complete = reader.complete
    read.result = reader.finish(strict=False)
    return read


@cache
def _readers_of(path: Path) -> tuple[str, ...]:
    chunks = load_events(path)
    return tuple(
        row.vendor
        for row in PROVIDERS.values()
        if row.stream_reader_path is not None and read_stream(row.vendor, chunks).complete
    )


def stream_cases() -> list[tuple[Path, str]]:
    """(stream, vendor) for every recorded stream and each vendor whose reader completes it."""
    return [(path, vendor) for path in stream_files() for vendor in _readers_of(path)]


def unread_streams() -> list[Path]:
    """Recorded streams that no vendor's reader completes."""
    return [path for path in stream_files() if not _readers_of(path)]
