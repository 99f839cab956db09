"""The contract between the router and a provider adapter.

An adapter builds the provider call, sends it through the provider's official SDK (SDK retries
off: the router owns retries), translates SDK errors into router errors at the boundary, and
hands the reply to pure mapping functions that return an :class:`AdapterResult`.

Streaming and offline extraction add three hooks per provider, each named in the provider's
registry row (:mod:`adapters.registry`) by import path:

``reply_mapper`` (``"adapters.<p>.reply:map_<p>_result"``), a :class:`ReplyMapper`:
    ``map(reply, request, *, strict=True) -> AdapterResult``. ``reply`` is the provider's final
    reply body as a plain dict (the REST spelling) or an SDK response object. With
    ``strict=True`` it is what ``complete()`` returns for that body and raises
    ``ResponseParseError`` when ``route()`` would (no answer text, a refusal, JSON that does not
    parse). With ``strict=False`` it never raises, whatever ``reply`` is: it maps what it can,
    leaves ``content`` empty and ``parsed`` None where it could not, and says why in
    ``warnings``. ``extract()`` calls it that way.

``stream_reader`` (``"adapters.<p>.stream:<P>StreamReader"``), a :class:`StreamFormat`:
    a class (or factory) called with the request, ``Reader(request) -> StreamReader``, with a
    static ``is_stream_event(value) -> bool`` that says whether a dict is one event or chunk of
    the provider's stream rather than a final reply body (``extract()`` asks it about a lone
    dict). A :class:`StreamReader` is fed the provider's stream chunks in order, each as the
    plain dict of one SSE ``data:`` payload (or one element of a JSON-array stream), and:

    - ``feed(chunk)`` returns the router events that chunk produced (emitted through a
      :class:`router.stream_events.EventBuffer`); it never raises, whatever the chunk holds:
      a chunk it cannot read is skipped and counted in the final warnings;
    - ``complete`` is True once the provider's last event arrived (OpenAI
      ``response.completed``, Gemini a chunk with a ``finishReason``); a stream that ends
      without it was cut short;
    - ``final_body()`` is the final reply body the chunks so far add up to, the one the
      provider's non-streaming call would have returned;
    - ``finish(strict=True)`` is ``reply_mapper(final_body(), request, strict=strict)`` with
      the reader's own warnings (unreadable chunks, a stream cut short) added; that identity is
      the invariant the stream tests check on every recorded stream.

    The text of the ``TextDelta`` events a reader emits, concatenated, is the ``content`` of
    ``finish()``; its citation events follow :mod:`router.stream_events`. A provider's reader
    subclasses :class:`adapters.stream_reader.StreamReaderBase`, which gives all of this but
    ``_read(chunk)`` and ``final_body()`` (including the reconciliation with the final body, and
    failed streams: a provider error event ends the stream and ``finish(strict=True)`` raises).

    The stream suites cover a provider's reader by themselves: every recorded stream under
    ``tests/data/recorded`` that its reader completes is checked against its golden row in
    ``tests/data/recorded_streams.json`` and the invariants above, and split and mutated at
    random; a stream no reader completes is listed in ``tests/data/streams_unread.json``.

``StreamingAdapter`` methods, for providers whose registry row says ``streaming=True``:
    ``stream(request, settings)`` / ``astream(...)`` send the streaming call once (no retries)
    and yield the provider's chunks as plain dicts, translating SDK errors at the boundary like
    ``complete()``; they raise on the first ``next()`` when the call fails before any chunk.
    ``finish_stream(request, settings, reader)`` / ``afinish_stream`` are called once the
    reader has completed and return the final result: ``reader.finish(strict=True)``, plus what
    the provider does after a streamed answer (Vertex: the JSON reshape of grounded JSON,
    DESIGN.md section 4). The router then resolves redirect links as it does for ``route()``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from router.settings import RouterSettings
from router.stream_events import StreamEvent
from router.types import Attribution, Citation, LLMRequest, Usage, Vendor

__all__ = [
    "Adapter",
    "AdapterResult",
    "ReplyMapper",
    "StreamFormat",
    "StreamReader",
    "StreamingAdapter",
]


@dataclass(slots=True)
class AdapterResult:
    """What one adapter call produced, before the router adds timing, attempts and validation.

    ``metadata`` carries adapter-specific extras (``two_step``, ``step1``, counts of dropped
    sources, ...) that the router merges into ``LLMResponse.metadata``.
    """

    content: str
    parsed: Any = None
    model_version: str | None = None
    grounded_effective: bool = False
    tool_call_count: int = 0
    web_search_queries: list[str] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    attributions: list[Attribution] = field(default_factory=list)
    search_entry_point: str | None = None
    usage: Usage = field(default_factory=Usage)
    warnings: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


class Adapter(Protocol):
    """One provider behind the router. Instances are reused across calls and threads."""

    vendor: Vendor

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send ``request`` once (no retries) and map the reply."""
        ...

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        ...

    def close(self) -> None:
        """Release the SDK clients this adapter holds (sync ones; async ones where possible)."""
        ...

    async def aclose(self) -> None:
        """Release the async SDK clients created on the running event loop."""
        ...


class StreamingAdapter(Adapter, Protocol):
    """An adapter that can stream (its registry row says ``streaming=True``)."""

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Send the streaming call once and yield the provider's chunks as dicts."""
        ...

    def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream` (an async generator)."""
        ...

    def finish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The final result once the reader completed (follow-up calls, if any)."""
        ...

    async def afinish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The async twin of :meth:`finish_stream`."""
        ...


class ReplyMapper(Protocol):
    """A provider's final-reply mapper (see the module docstring)."""

    def __call__(
        self, reply: object, request: LLMRequest, /, *, strict: bool = True
    ) -> AdapterResult: ...


class StreamReader(Protocol):
    """Reads one provider stream, chunk by chunk (see the module docstring)."""

    @property
    def complete(self) -> bool:
        """Whether the provider's last event has arrived."""
        ...

    def feed(self, chunk: Mapping[str, Any]) -> Sequence[StreamEvent]:
        """The router events of one chunk; never raises."""
        ...

    def final_body(self) -> dict[str, Any]:
        """The final reply body the chunks so far add up to."""
        ...

    def finish(self, *, strict: bool = True) -> AdapterResult:
        """The reply mapper's result for :meth:`final_body`, with the reader's warnings."""
        ...


class StreamFormat(Protocol):
    """A provider's stream reader class: called with the request, it gives a fresh reader."""

    def __call__(self, request: LLMRequest) -> StreamReader: ...

    @staticmethod
    def is_stream_event(value: Mapping[str, Any]) -> bool:
        """Whether ``value`` is one event or chunk of a stream, not a final reply body."""
        ...
