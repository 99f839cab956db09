"""One streamed call, sync and async: retries before the first event, cuts, REQUIRED at the end.

The router (``Router.stream`` / ``.astream``) hands over the request and :class:`StreamParts`:
the vendor's registry row and streaming adapter, the settings, its retry policy and its
:class:`~router.respond.Responder`, the last step every path shares (values only: nothing here
calls back into the router). :func:`run_stream` and :func:`arun_stream` drive the provider's
chunks through the provider's stream reader:

1. Open the stream and read chunks until the reader has an event for the caller, under the
   retry policy: a transient error (or a stream that ends before any event) before that point
   is retried like a ``route()`` call.
2. Deliver events as the chunks come. An error from here on is not retried: a transient one
   becomes ``ProviderTransientError(reason="stream_cut")`` saying what was delivered (or
   ``"stream_failed"`` when the provider ended the stream with an error event).
3. A stream that ends before the provider's last event is cut short: the same error.
4. The adapter's final result (``finish_stream``: the reader's result, raising
   ``ResponseParseError`` as ``route()`` would, and any follow-up call: Vertex's JSON reshape,
   whose JSON is delivered as one ``TextDelta``), its redirect links resolved when resolution is
   on (as ``route()`` does; the citations already streamed keep the links), then the last step
   ``route()`` takes too (:mod:`router.respond`: assembly, cost, the validators; REQUIRED
   grounding raises here, instead of ``Completed``), then ``Completed``.

Text and citations pass the same lone-surrogate scrub and the same redaction of strong secrets
as the final response (:mod:`router.streaming.redacting`: text that could be the start of a
secret waits for the next piece), so what the caller sees streamed is what ``Completed`` holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Generator,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from typing import Any

from adapters.base import AdapterResult, StreamingAdapter, StreamReader
from adapters.registry import ProviderRow
from router.call_limits import (
    CallLimits,
    aiterate_within,
    iterate_within,
    limits_for,
    limits_scope,
)
from router.citations.build import citation_key
from router.errors import ProviderTransientError, RouterError
from router.respond import Responder, aguarded, guarded, unexpected
from router.retry import RetryPolicy
from router.settings import RouterSettings
from router.streaming.accumulator import stream_reader
from router.streaming.events import CitationDelta, Completed, StreamEvent, TextDelta
from router.streaming.redacting import SecretHold
from router.text.lone_surrogates import scrub, scrub_citations
from router.text.redaction import strong_secrets_registered
from router.types import LLMRequest, LLMResponse

__all__ = ["StreamParts", "arun_stream", "run_stream"]

Chunks = Iterator[dict[str, Any]]
AsyncChunks = AsyncIterator[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class StreamParts:
    """What one streamed call needs: the vendor's row and adapter, and the router's settings,
    retry policy and last step."""

    adapter: StreamingAdapter
    row: ProviderRow
    settings: RouterSettings
    retry: RetryPolicy
    responder: Responder


@dataclass(slots=True)
class _Delivered:
    """What the caller has been given so far."""

    pieces: list[str] = field(default_factory=list)
    characters: int = 0
    citations: set[str] = field(default_factory=set)
    events: int = 0
    hold: SecretHold | None = field(
        default_factory=lambda: SecretHold() if strong_secrets_registered() else None
    )

    def passed(self, event: StreamEvent) -> tuple[StreamEvent, ...]:
        """``event`` as the caller gets it (scrubbed, strong secrets held back and cut out),
        counted: none while its text is all held back."""
        if isinstance(event, TextDelta):
            text = scrub(event.text)
            self.pieces.append(text)
            event = event if text is event.text else TextDelta(text)
        elif isinstance(event, CitationDelta):
            (citation,) = scrub_citations([event.citation])
            self.citations.add(citation_key(citation))
            event = CitationDelta(citation)
        return self._counted(event if self.hold is None else self.hold.event(event))

    def flush(self) -> tuple[StreamEvent, ...]:
        """The text held back, now that the stream has ended, and the citations whose spans
        waited for it."""
        if self.hold is None:
            return ()
        text = self.hold.flush()
        events = [TextDelta(text)] if text else []
        return tuple(
            counted
            for event in (*events, *self.hold.flush_citations())
            for counted in self._counted(event)
        )

    def _counted(self, event: StreamEvent | None) -> tuple[StreamEvent, ...]:
        if event is None:
            return ()
        self.events += 1
        if isinstance(event, TextDelta):
            self.characters += len(event.text)
        return (event,)

    def said(self) -> str:
        return (
            f"{self.characters} characters of text, {len(self.citations)} citations and "
            f"{self.events} events had been delivered"
        )


def _cut(request: LLMRequest, delivered: _Delivered, chunks: int, cause: str) -> RouterError:
    return ProviderTransientError(
        f"{request.vendor}: the stream was cut short {cause} after {chunks} chunks; "
        f"{delivered.said()}, and the answer is incomplete",
        vendor=request.vendor,
        reason="stream_cut",
    )


def _broke(request: LLMRequest, delivered: _Delivered, error: RouterError) -> RouterError:
    """An error after the first event: a transient one says how much was delivered."""
    if not isinstance(error, ProviderTransientError):
        return error
    broken = ProviderTransientError(
        f"{request.vendor}: the stream broke ({error.message}); {delivered.said()}, and the "
        "answer is incomplete",
        vendor=request.vendor,
        status_code=error.status_code,
        reason="stream_failed" if error.reason == "stream_failed" else "stream_cut",
    )
    broken.__cause__ = error
    return broken


def _before_first_event(request: LLMRequest, chunks: int) -> ProviderTransientError:
    return ProviderTransientError(
        f"{request.vendor}: the stream ended after {chunks} chunks, before any answer",
        vendor=request.vendor,
        reason="stream_cut",
    )


class _WithinLimits:
    """A stream reader that reads inside the call's limits, so the citation cap
    (``max_citations``) and the forensic-event cap (``max_debug_events``) apply to what it
    extracts chunk by chunk, as they do to a ``route()`` reply."""

    __slots__ = ("limits", "reader")

    def __init__(self, reader: StreamReader, limits: CallLimits) -> None:
        self.reader = reader
        self.limits = limits

    @property
    def complete(self) -> bool:
        return self.reader.complete

    def feed(self, chunk: Mapping[str, Any]) -> Sequence[StreamEvent]:
        with limits_scope(self.limits):
            return self.reader.feed(chunk)

    def final_body(self) -> dict[str, Any]:
        return self.reader.final_body()

    def finish(self, *, strict: bool = True) -> AdapterResult:
        with limits_scope(self.limits):
            return self.reader.finish(strict=strict)


def _limits_of(reader: StreamReader) -> CallLimits | None:
    return reader.limits if isinstance(reader, _WithinLimits) else None


def _deadline(chunks: Chunks, limits: CallLimits, parts: StreamParts) -> Chunks:
    """The stream within one call's limits: every chunk read inside them, and the whole stream
    ended by the call's deadline (``timeout_s``) with the deadline's error, as ``route()`` is."""
    try:
        yield from iterate_within(limits, chunks)
    except Exception as exc:
        limited = limits.error(parts.row.label, parts.row.vendor)
        if limited is None:
            raise
        raise limited from exc
    finally:
        _close(chunks)


async def _adeadline(chunks: AsyncChunks, limits: CallLimits, parts: StreamParts) -> AsyncChunks:
    """The async twin of :func:`_deadline`."""
    try:
        async for chunk in aiterate_within(limits, chunks):
            yield chunk
    except Exception as exc:
        limited = limits.error(parts.row.label, parts.row.vendor)
        if limited is None:
            raise
        raise limited from exc
    finally:
        await _aclose(chunks)


def _respond(
    request: LLMRequest,
    parts: StreamParts,
    result: AdapterResult,
    attempts: int,
    started: float,
    *,
    limits: CallLimits | None,
) -> LLMResponse:
    """The stream's final response: the last step ``route()`` takes too (saying so, as it
    does, when the call's limits cut citations or forensic events)."""
    return parts.responder.respond(
        request, parts.row.label, result, attempts=attempts, started=started, limits=limits
    )


def _replaced(result: AdapterResult, delivered: _Delivered) -> bool:
    """A two-step answer: the follow-up's content (the JSON) replaces the streamed prose."""
    return bool(result.metadata.get("two_step")) and result.content != "".join(delivered.pieces)


# -- sync ----------------------------------------------------------------------------------


def run_stream(
    request: LLMRequest, parts: StreamParts, started: float
) -> Generator[StreamEvent, None, None]:
    """The events of one streamed call (see the module docstring)."""
    opened, attempts = parts.retry.call(lambda: _open(request, parts))
    chunks, reader, first, count = opened
    delivered = _Delivered()
    try:
        for event in first:
            for passed in delivered.passed(event):
                yield passed
        try:
            for chunk in chunks:
                count += 1
                for event in reader.feed(chunk):
                    for passed in delivered.passed(event):
                        yield passed
        except RouterError as error:
            raise _broke(request, delivered, error) from error.__cause__
        except Exception as exc:
            raise unexpected(exc) from exc
    finally:
        _close(chunks)
    if not reader.complete:
        raise _cut(request, delivered, count, "before its last event")
    try:
        result = guarded(lambda: parts.adapter.finish_stream(request, parts.settings, reader))
    except ProviderTransientError as error:
        raise _broke(request, delivered, error) from error
    guarded(lambda: parts.responder.resolve(result))
    for passed in delivered.flush():
        yield passed
    if _replaced(result, delivered):
        for passed in (*delivered.passed(TextDelta(result.content)), *delivered.flush()):
            yield passed
    yield Completed(_respond(request, parts, result, attempts, started, limits=_limits_of(reader)))


def _open(
    request: LLMRequest, parts: StreamParts
) -> tuple[Chunks, StreamReader, Sequence[StreamEvent], int]:
    """Open the stream and read it up to its first events (one attempt)."""
    try:
        limits = limits_for(request, parts.settings)
        reader: StreamReader = _WithinLimits(stream_reader(parts.row, request), limits)
        chunks = _deadline(parts.adapter.stream(request, parts.settings), limits, parts)
    except RouterError:
        raise
    except Exception as exc:
        raise unexpected(exc) from exc
    count = 0
    try:
        for chunk in chunks:
            count += 1
            events = reader.feed(chunk)
            if events:
                return chunks, reader, events, count
    except RouterError:
        _close(chunks)
        raise
    except Exception as exc:
        _close(chunks)
        raise unexpected(exc) from exc
    if reader.complete:  # a complete stream without a word: the reader's result says why
        return iter(()), reader, (), count
    raise _before_first_event(request, count)


def _close(chunks: Iterator[Any]) -> None:
    close = getattr(chunks, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):  # closing a broken stream must not hide why
            close()


# -- async ---------------------------------------------------------------------------------


async def arun_stream(
    request: LLMRequest, parts: StreamParts, started: float
) -> AsyncGenerator[StreamEvent, None]:
    """The async twin of :func:`run_stream`."""

    async def attempt() -> tuple[AsyncChunks, StreamReader, Sequence[StreamEvent], int]:
        return await _aopen(request, parts)

    opened, attempts = await parts.retry.acall(attempt)
    chunks, reader, first, count = opened
    delivered = _Delivered()
    try:
        for event in first:
            for passed in delivered.passed(event):
                yield passed
        try:
            async for chunk in chunks:
                count += 1
                for event in reader.feed(chunk):
                    for passed in delivered.passed(event):
                        yield passed
        except RouterError as error:
            raise _broke(request, delivered, error) from error.__cause__
        except Exception as exc:
            raise unexpected(exc) from exc
    finally:
        await _aclose(chunks)
    if not reader.complete:
        raise _cut(request, delivered, count, "before its last event")
    try:
        result = await aguarded(
            lambda: parts.adapter.afinish_stream(request, parts.settings, reader)
        )
    except ProviderTransientError as error:
        raise _broke(request, delivered, error) from error
    await aguarded(lambda: parts.responder.aresolve(result))
    for passed in delivered.flush():
        yield passed
    if _replaced(result, delivered):
        for passed in (*delivered.passed(TextDelta(result.content)), *delivered.flush()):
            yield passed
    yield Completed(_respond(request, parts, result, attempts, started, limits=_limits_of(reader)))


async def _aopen(
    request: LLMRequest, parts: StreamParts
) -> tuple[AsyncChunks, StreamReader, Sequence[StreamEvent], int]:
    try:
        limits = limits_for(request, parts.settings)
        reader: StreamReader = _WithinLimits(stream_reader(parts.row, request), limits)
        chunks = _adeadline(parts.adapter.astream(request, parts.settings), limits, parts)
    except RouterError:
        raise
    except Exception as exc:
        raise unexpected(exc) from exc
    count = 0
    try:
        async for chunk in chunks:
            count += 1
            events = reader.feed(chunk)
            if events:
                return chunks, reader, events, count
    except RouterError:
        await _aclose(chunks)
        raise
    except Exception as exc:
        await _aclose(chunks)
        raise unexpected(exc) from exc
    if reader.complete:
        return _no_chunks(), reader, (), count
    raise _before_first_event(request, count)


async def _no_chunks() -> AsyncChunks:
    return
    yield  # an async generator that yields nothing


async def _aclose(chunks: AsyncIterator[Any]) -> None:
    close = getattr(chunks, "aclose", None)
    if callable(close):
        with contextlib.suppress(Exception):
            await close()
