"""Folding a stream into its final state: :class:`StreamAccumulator`, and the provider's reader.

:class:`StreamAccumulator` folds events, or a provider's raw chunks, into that final state:
``text``, the latest ``citations`` per source, ``web_search_queries``, ``search_calls``, and
``result()``: the ``Completed`` response, or for raw chunks the same ``LLMResponse`` that
``extract()`` gives for them. :func:`open_stream_reader` gives a vendor's stream reader, from
its registry row (the stream call reads live chunks with it too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.base import StreamReader
from adapters.registry import ProviderRow, provider
from router.citations.build import citation_key
from router.errors import RequestValidationError, ResponseParseError
from router.extraction import offline_request
from router.respond import offline_response
from router.streaming.events import (
    CitationDelta,
    Completed,
    SearchStarted,
    StreamEvent,
    TextDelta,
)
from router.types import Citation, LLMRequest, LLMResponse

__all__ = ["StreamAccumulator", "open_stream_reader", "stream_reader"]


def open_stream_reader(vendor: str, request: LLMRequest) -> StreamReader:
    """A fresh stream reader of ``vendor`` for ``request`` (the provider's, from the registry)."""
    return stream_reader(provider(vendor), request)


def stream_reader(row: ProviderRow, request: LLMRequest) -> StreamReader:
    """A fresh stream reader of ``row``'s provider for ``request``."""
    reader_class = row.stream_format()
    if reader_class is None:
        raise RequestValidationError(
            f"vendor: {row.label} has no stream reader, so its streams cannot be read",
            field="vendor",
        )
    return reader_class(request)


class StreamAccumulator:
    """Folds a stream into its final state: router events, or one provider's raw chunks.

    ``vendor`` (and optionally ``request``) is needed only to fold raw chunks, which go
    through the provider's stream reader; the events they produce are folded and returned.
    """

    def __init__(
        self,
        vendor: str | None = None,
        *,
        request: LLMRequest | Mapping[str, Any] | None = None,
    ) -> None:
        self._vendor = vendor
        self._request = request
        self._reader: StreamReader | None = None
        self._asked: LLMRequest | None = None
        self._pieces: list[str] = []
        self._citations: dict[str, Citation] = {}
        self._queries: dict[str, None] = {}
        self.search_calls = 0
        """``SearchStarted`` events seen."""
        self.response: LLMResponse | None = None
        """The ``Completed`` response, once it came."""

    def add(self, item: StreamEvent | Mapping[str, Any]) -> Sequence[StreamEvent]:
        """Fold one event, or one raw provider chunk; returns the events folded."""
        if isinstance(item, TextDelta | SearchStarted | CitationDelta | Completed):
            self._fold(item)
            return (item,)
        events = self._chunk_reader().feed(item)
        for event in events:
            self._fold(event)
        return events

    def extend(self, items: Sequence[StreamEvent | Mapping[str, Any]]) -> None:
        """Fold each of ``items`` in order."""
        for item in items:
            self.add(item)

    @property
    def text(self) -> str:
        """The answer text delivered so far."""
        if len(self._pieces) > 1:
            self._pieces = ["".join(self._pieces)]
        return self._pieces[0] if self._pieces else ""

    @property
    def citations(self) -> list[Citation]:
        """The latest state of each source's citation, in rank order."""
        return sorted(
            self._citations.values(),
            key=lambda citation: (citation["rank"] is None, citation["rank"] or 0),
        )

    @property
    def web_search_queries(self) -> list[str]:
        """The search queries announced so far, in order, without repeats."""
        return list(self._queries)

    @property
    def completed(self) -> bool:
        """Whether the stream has completed (a ``Completed`` event, or the provider's last)."""
        return self.response is not None or (self._reader is not None and self._reader.complete)

    def result(self) -> LLMResponse:
        """The final response: ``Completed``'s, or for raw chunks what ``extract()`` gives.

        Raises ``ResponseParseError`` when only events were folded and none was ``Completed``.
        """
        if self.response is not None:
            return self.response
        if self._reader is not None and self._asked is not None:
            return offline_response(self._asked, self._reader.finish(strict=False))
        raise ResponseParseError(
            f"the stream has not completed: {len(self.text)} characters and "
            f"{len(self._citations)} citations folded, and no Completed event",
            reason="stream_incomplete",
        )

    def _fold(self, event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            self._pieces.append(event.text)
        elif isinstance(event, CitationDelta):
            self._citations[citation_key(event.citation)] = event.citation
        elif isinstance(event, SearchStarted):
            self.search_calls += 1
            self._queries.update(dict.fromkeys(event.queries))
        else:
            self.response = event.response

    def _chunk_reader(self) -> StreamReader:
        if self._reader is None:
            if self._vendor is None:
                raise RequestValidationError(
                    "StreamAccumulator: raw provider chunks need the vendor, "
                    "StreamAccumulator(vendor=...)",
                    field="vendor",
                )
            self._asked = offline_request(self._vendor, self._request)
            self._reader = open_stream_reader(self._vendor, self._asked)
        return self._reader
