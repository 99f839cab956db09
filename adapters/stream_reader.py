"""What every provider's stream reader shares: safe feeding, the final reconciliation, warnings.

A provider's reader (``adapters/<provider>/stream.py``) subclasses :class:`StreamReaderBase`
and implements two things:

- ``_read(chunk)``: read one chunk (a plain dict), update the reader's own state, and emit the
  events it can through ``self.events`` (a :class:`router.stream_events.EventBuffer`); call
  ``self._completed()`` when the chunk is the provider's last event;
- ``final_body()``: the final reply body the chunks so far add up to.

The base class gives the rest of the :class:`adapters.base.StreamReader` protocol:

- ``feed(chunk)`` never raises: a chunk that is not a dict, or whose reading raises, is skipped
  and counted (the count becomes a warning of the result);
- on ``_completed()`` the final body is mapped once with the provider's reply mapper, and the
  events are reconciled with it: the answer text not yet delivered (text a reader held back,
  or text that only the final event carried) goes out as one last ``TextDelta``, every final
  citation that differs from what was last emitted for its source goes out as a
  ``CitationDelta`` (so the latest delta per source is exactly the final citation, rank
  included), and search calls the final body shows but no ``SearchStarted`` announced are
  announced;
- a chunk after the provider's last event is not read as part of the answer: a trailer the
  provider does send there (a usage chunk) is read through ``_trailer(chunk)`` and the final
  body mapped again; anything else (text after Anthropic's ``message_stop``, for instance) is
  ignored and counted, so the streamed text stays the final answer, and the result says so;
- ``finish(strict)`` returns that mapped result (mapping the body so far when the stream never
  completed), with the reader's warnings added: chunks skipped, a stream cut short, streamed
  text that the final reply contradicts.

A stream the provider ends with an error (OpenAI ``response.failed`` or an ``error`` event, a
Gemini error chunk) is reported with ``self._failed(message, transient=...)``: the stream is
over, ``finish(strict=True)`` raises ``ProviderTransientError`` (transient failures: server
errors, rate limits) or ``ResponseParseError`` (the rest), both with ``reason="stream_failed"``
and the provider's message, and ``finish(strict=False)`` keeps the message as a warning. A
failed stream never completes into an answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from adapters.base import AdapterResult, ReplyMapper
from router.call_limits import current_limits
from router.errors import ProviderTransientError, ResponseParseError, RouterError
from router.logging import get_logger
from router.stream_events import EventBuffer, StreamEvent
from router.types import LLMRequest

__all__ = ["StreamReaderBase"]

_log = get_logger(__name__)


class StreamReaderBase:
    """The shared half of a stream reader; see the module docstring."""

    label = "provider"
    """The provider's name in warnings."""
    vendor: str | None = None
    """The vendor the errors of a failed stream name."""

    def __init__(self, request: LLMRequest, mapper: ReplyMapper) -> None:
        self.request = request
        self.events = EventBuffer()
        self.chunks = 0
        self.skipped = 0
        self._mapper = mapper
        self._complete = False
        self._announced_calls = 0
        self._announced_queries: dict[str, None] = {}
        self._result: AdapterResult | None = None
        self._error: ResponseParseError | None = None
        self._failure: RouterError | None = None
        self._warnings: list[str] = []
        self.ignored_after_end = 0
        """Events that came after the stream's last event and were not read."""

    # -- the protocol ----------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Whether the provider's last event has arrived."""
        return self._complete

    def feed(self, chunk: Mapping[str, Any]) -> Sequence[StreamEvent]:
        """The router events of one chunk; never raises."""
        self.chunks += 1
        if self._complete:
            self._after_end(chunk)
        elif not isinstance(chunk, Mapping):
            self.skipped += 1
        else:
            try:
                self._read(chunk)
            except Exception as exc:  # a chunk this reader cannot make sense of is skipped
                self.skipped += 1
                _log.debug("stream_chunk_skipped", provider=self.label, error=type(exc).__name__)
        return self.events.take()

    def final_body(self) -> dict[str, Any]:
        """The final reply body the chunks so far add up to."""
        raise NotImplementedError

    def finish(self, *, strict: bool = True) -> AdapterResult:
        """The mapped final body with the reader's warnings; raises as the mapper does."""
        if self._result is None:
            self._map()
        assert self._result is not None
        if strict and self._failure is not None:
            raise self._failure
        if strict and self._error is not None:
            raise self._error
        result = self._result
        warnings = [*result.warnings, *self._warnings]
        if self.skipped:
            warnings.append(
                f"{self.label} stream: {self.skipped} of {self.chunks} chunks could not be read "
                "and were skipped"
            )
        if self.ignored_after_end:
            warnings.append(
                f"{self.label} stream: {self.ignored_after_end} events came after the stream's "
                "last event and were ignored; the answer is what the stream said before it ended"
            )
        if not self._complete:
            warnings.append(
                f"{self.label} stream: ended before its last event after {self.chunks} chunks "
                f"and {self.events.delivered} characters of text; the reply may be cut short"
            )
        return replace(result, warnings=warnings)

    # -- for subclasses --------------------------------------------------------------------

    def _read(self, chunk: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _trailer(self, chunk: Mapping[str, Any]) -> bool | None:
        """Read ``chunk``, which came after the stream's last event, if it may come there.

        True when it was read (a usage trailer: the final body is mapped again), None when it
        says nothing and needs no warning (a keep-alive), False when it is ignored: a provider's
        stream says nothing after its end, so text or sources there would make the streamed
        answer differ from the final one. By default every chunk is ignored.
        """
        del chunk
        return False

    def _after_end(self, chunk: object) -> None:
        """A chunk after the stream's last event: a trailer is read, anything else ignored."""
        try:
            taken = isinstance(chunk, Mapping) and self._failure is None and self._trailer(chunk)
        except Exception as exc:  # a trailer this reader cannot make sense of is ignored
            _log.debug("stream_trailer_unread", provider=self.label, error=type(exc).__name__)
            taken = False
        if taken:
            self._reconcile()
        elif taken is False:
            self.ignored_after_end += 1
            if self.ignored_after_end == 1:
                _log.warning("stream_events_after_end", provider=self.label, chunks=self.chunks)

    def _announce(self, queries: Sequence[str]) -> None:
        """Emit ``SearchStarted`` for one search call."""
        self._announced_calls += 1
        self._announced_queries.update(dict.fromkeys(queries))
        self.events.search(tuple(queries))

    def _failed(self, message: str, *, transient: bool) -> None:
        """The provider ended the stream with an error (see the module docstring)."""
        said = f"{self.label}: the stream failed after {self.events.delivered} characters: "
        said += message[:300]
        self._warnings.append(said)
        if self._failure is None:
            error_class = ProviderTransientError if transient else ResponseParseError
            self._failure = error_class(said, vendor=self.vendor, reason="stream_failed")
        self._complete = True
        self._map()

    def _completed(self) -> None:
        """The provider's last event arrived: map the final body and reconcile the events."""
        if self._complete:
            return
        self._complete = True
        self._reconcile()

    def _reconcile(self) -> None:
        """Map the final body and emit what the events so far do not yet say."""
        self._map()
        assert self._result is not None
        result = self._result
        delivered = self.events.delivered_text()
        if result.content.startswith(delivered):
            self.events.text(result.content[len(delivered) :])
        elif not self._warnings or "streamed text differs" not in self._warnings[-1]:
            self._warnings.append(
                f"{self.label} stream: the streamed text differs from the final reply's text "
                f"after {_common_prefix(delivered, result.content)} characters; the response "
                "holds the final reply's text"
            )
        missing = [q for q in result.web_search_queries if q not in self._announced_queries]
        while self._announced_calls < result.tool_call_count:
            self._announce(missing)
            missing = []
        for citation in result.citations:
            self.events.citation(citation)

    def _map(self) -> None:
        # The call's citation cap counts what this mapping of the whole reply cuts, not what
        # the chunk-by-chunk extractions before it cut of the reply so far.
        limits = current_limits()
        try:
            body = self.final_body()
            try:
                if limits is not None:
                    limits.citations_cut = 0
                self._result = self._mapper(body, self.request, strict=True)
            except ResponseParseError as error:
                self._error = error
                if limits is not None:
                    limits.citations_cut = 0
                self._result = self._mapper(body, self.request, strict=False)
        except Exception as exc:  # a mapper bug must not break a stream or an extraction
            reason = f"{self.label} stream: the reply could not be mapped ({type(exc).__name__})"
            self._error = ResponseParseError(reason, reason="unmappable_stream")
            self._result = AdapterResult(content="", warnings=[reason])


def _common_prefix(first: str, second: str) -> int:
    length = min(len(first), len(second))
    for position in range(length):
        if first[position] != second[position]:
            return position
    return length
