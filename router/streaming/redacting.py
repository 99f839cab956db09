"""Strong secrets out of a stream's events, as they are delivered.

The final response is redacted at assembly (:mod:`router.text.echoes`); a stream delivers the
same answer earlier, piece by piece, and a key quoted in it may come a few characters at a time.
:class:`SecretHold` passes the text on as it comes, except for a tail that could be the start of
a strong secret's run (:func:`~router.text.redaction.secret_prefix_tail`) or that ends in one:
that tail waits for the next piece, or for the end of the stream. The text delivered, joined, is
then exactly the redacted ``content`` of ``Completed``, and the spans of the citations delivered
point into it (a span that reaches into held text waits for a later update, as a span past the
delivered text does). Built only while a strong secret is registered.
"""

from __future__ import annotations

from router.citations.build import citation_key
from router.streaming.events import CitationDelta, SearchStarted, StreamEvent, TextDelta
from router.text.echoes import Offsets, redact_citation, redact_strings
from router.text.redaction import REDACTED, secret_prefix_tail, strong_secret_spans
from router.types import Citation, Span

__all__ = ["SecretHold"]


class SecretHold:
    """The text held back from a stream, and where secrets were cut out of what was delivered."""

    __slots__ = ("_delivered_raw", "_pending", "_replaced", "_waiting")

    def __init__(self) -> None:
        self._pending = ""
        self._delivered_raw = 0
        """Characters of the provider's text delivered so far (before redaction)."""
        self._replaced: list[tuple[int, int]] = []
        """Where secrets were, in the provider's text delivered so far."""
        self._waiting: dict[str, Citation] = {}
        """Citations delivered without the spans that reach into held text, by source."""

    def text(self, text: str) -> str:
        """What of the text so far may be delivered now, redacted (possibly nothing)."""
        pending = self._pending + text
        spans = strong_secret_spans(pending)
        cut = len(pending) - secret_prefix_tail(pending)
        # A secret that reaches the cut may go on in the next piece: it waits whole.
        cut = next((start for start, end in spans if end >= cut), cut)
        return self._deliver(pending, cut, [span for span in spans if span[1] < cut])

    def flush(self) -> str:
        """The text still held, redacted: the stream has ended."""
        pending = self._pending
        return self._deliver(pending, len(pending), strong_secret_spans(pending))

    def flush_citations(self) -> list[StreamEvent]:
        """After :meth:`flush`: the citations whose spans waited for held text, whole now, so the
        last update of every source equals the final response's citation."""
        waiting, self._waiting = list(self._waiting.values()), {}
        return [event for c in waiting if (event := self.event(CitationDelta(c))) is not None]

    def _deliver(self, pending: str, cut: int, spans: list[tuple[int, int]]) -> str:
        pieces: list[str] = []
        position = 0
        for start, end in spans:
            pieces.append(pending[position:start])
            pieces.append(REDACTED)
            position = end
            self._replaced.append((self._delivered_raw + start, self._delivered_raw + end))
        pieces.append(pending[position:cut])
        self._pending = pending[cut:]
        self._delivered_raw += cut
        return "".join(pieces)

    def event(self, event: StreamEvent) -> StreamEvent | None:
        """``event`` as the caller gets it; None for text that is all held back."""
        if isinstance(event, TextDelta):
            text = self.text(event.text)
            return TextDelta(text) if text else None
        if isinstance(event, CitationDelta):
            citation = event.citation
            spans: list[Span] = [s for s in citation["spans"] if s["end"] <= self._delivered_raw]
            source = citation_key(citation)
            if len(spans) < len(citation["spans"]):
                self._waiting[source] = citation
            else:
                self._waiting.pop(source, None)
            offsets = Offsets(tuple(self._replaced))
            return CitationDelta(redact_citation({**citation, "spans": spans}, offsets))
        if isinstance(event, SearchStarted):
            return SearchStarted(tuple(redact_strings(list(event.queries))))
        return event
