"""The events a stream yields, and the buffer a provider's stream reader emits them through.

Events (DESIGN.md section 9), in the order a stream delivers them:

- :class:`TextDelta` ``(text)``: the next piece of the answer. Concatenated, the deltas are the
  response's ``content`` (for grounded JSON answered in two steps, step 1's prose first and
  then the JSON as one last delta, see :mod:`router.streaming`).
- :class:`SearchStarted` ``(queries)``: the model ran a search (one event per provider search
  call, sent when the call's queries are known; ``queries`` may be empty for a page fetch).
- :class:`CitationDelta` ``(citation)``: a uniform citation (DESIGN.md section 3), new or
  updated. It is the citation's whole state as known now, not a difference: a consumer keeps the
  latest one per source (:func:`router.citations.build.citation_key`). Its ``spans`` are
  character offsets into the text delivered so far, so a marker can be placed at once; no span
  ever points past that text. ``rank`` is provisional while the stream runs (the final ranks are
  the ones in ``Completed.response``).
- :class:`Completed` ``(response)``: the same ``LLMResponse`` that ``route()`` returns for the
  same reply. It is always last; a stream that cannot complete raises instead.

:class:`EventBuffer` is what stream readers (``adapters/<provider>/stream.py``) emit through: it
keeps count of the text delivered, cuts any span that points past it, drops citation updates
that change nothing, and hands the events of one provider chunk back as a list.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Final

from router.call_limits import current_limits
from router.citations.build import citation_key
from router.types import Citation, LLMResponse, Span

__all__ = [
    "CitationDelta",
    "Completed",
    "EventBuffer",
    "SearchStarted",
    "StreamEvent",
    "TextDelta",
]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """The next piece of the answer text."""

    text: str


@dataclass(frozen=True, slots=True)
class SearchStarted:
    """The model ran a search; ``queries`` are its queries (empty when it fetched a page)."""

    queries: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CitationDelta:
    """A citation, new or updated, with its spans in the text delivered so far."""

    citation: Citation


@dataclass(frozen=True, slots=True)
class Completed:
    """The end of the stream: the response ``route()`` would have returned."""

    response: LLMResponse


StreamEvent = TextDelta | SearchStarted | CitationDelta | Completed

_END = itemgetter("end")
_NO_EVENTS: Final[tuple[StreamEvent, ...]] = ()


class EventBuffer:
    """Where a stream reader puts the events of the chunk it is reading.

    ``text()`` counts the delivered characters; ``citation()`` keeps only the spans that end
    within them and emits nothing when the citation is the same as the one last emitted for its
    source, or when it is a new source past the call's ``max_citations``; ``take()`` hands the
    collected events over (an empty tuple, shared, when there are
    none, so a chunk that carries no event costs no allocation).
    """

    __slots__ = ("_emitted", "_events", "_pieces", "delivered", "spans_held_back")

    def __init__(self) -> None:
        self._events: list[StreamEvent] = []
        self._pieces: list[str] = []
        self._emitted: dict[str, Citation] = {}
        self.delivered = 0
        """Characters of answer text delivered so far."""
        self.spans_held_back = 0
        """Spans left out of a delta because they reached past the delivered text."""

    def text(self, text: str) -> None:
        """Deliver answer text (empty text is not an event)."""
        if text:
            self._events.append(TextDelta(text))
            self._pieces.append(text)
            self.delivered += len(text)

    def delivered_text(self) -> str:
        """The answer text delivered so far."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    def search(self, queries: tuple[str, ...]) -> None:
        """Report one search call and its queries."""
        self._events.append(SearchStarted(queries))

    def citation(self, citation: Citation) -> None:
        """Emit ``citation`` (its state as known now) unless it repeats the last one emitted."""
        spans = citation["spans"]
        if spans and max(map(_END, spans)) > self.delivered:
            kept: list[Span] = [span for span in spans if span["end"] <= self.delivered]
            self.spans_held_back += len(spans) - len(kept)
            citation = {**citation, "spans": kept}
        key = citation_key(citation)
        if key not in self._emitted:
            limits = current_limits()  # the call's citation cap holds for the deltas too
            most = limits.max_citations if limits is not None else None
            if most is not None and len(self._emitted) >= most:
                return
        elif self._emitted[key] == citation:
            return
        self._emitted[key] = citation
        self._events.append(CitationDelta(citation))

    def take(self) -> tuple[StreamEvent, ...] | list[StreamEvent]:
        """The events collected since the last call, in order."""
        if not self._events:
            return _NO_EVENTS
        events, self._events = self._events, []
        return events
