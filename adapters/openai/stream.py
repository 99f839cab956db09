"""OpenAI stream readers: Responses API SSE, and Chat Completions chunks (search-preview models).

:class:`OpenAIStreamReader` is the provider's reader (``adapters.base.StreamReader``); it reads
a Responses stream, and hands a Chat Completions stream (``chat.completion.chunk``) to
:class:`adapters.openai_compatible.stream.ChatStreamReader`. Both end in :func:`map_openai_reply`
on the final body, so a stream and its final reply map alike.

A Responses stream (provider-quirks section 1, "Streaming") is read like this:

- ``response.output_text.delta`` of an answer message: the text, with the private-use
  citation tokens removed as the final mapping removes them (``stream_text``), as ``TextDelta``.
  Messages in the ``commentary`` phase are not the answer: their text is held, and delivered
  at the end only when no other message answers.
- ``response.output_text.annotation.added`` (it follows the delta that holds its markdown
  link): a cited ``CitationDelta`` whose spans are the annotation's offsets mapped into the
  text delivered so far; repeated annotations of one URL add spans to one citation.
- ``response.output_item.added`` / ``.done`` of a ``web_search_call``: one ``SearchStarted``
  per call once its queries are known (its ``action`` usually comes only in ``.done``, and an
  early one may lack the queries), and a not-cited ``CitationDelta`` for each new source its
  ``action.sources`` (or page fetch, or results) names.
- ``response.completed`` (or ``.incomplete`` / ``.failed``): the final body; the reader
  completes and the base class reconciles the events with it. The annotations that
  ``content_part.done``, ``output_item.done`` and ``response.completed`` repeat are not read
  as new ones: citations of the stream come from the annotation events, the final ones from
  the final body alone.
- ``response.failed`` and ``error``: the stream failed (its error's code says whether a retry
  could help: ``server_error``, ``rate_limit_exceeded``); the reader ends there, and its result
  raises (see :mod:`adapters.stream_reader`).

Without a ``response.completed`` the final body is rebuilt from the events: the response as
``response.created`` announced it, with the output items as ``output_item.done`` gave them and
the text of unfinished messages from their deltas and annotations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.base import AdapterResult
from adapters.openai.reply import map_openai_reply
from adapters.openai_compatible.annotations import read_url_citation
from adapters.openai_compatible.citations import _url_citation_location, read_openai_reply
from adapters.openai_compatible.stream import ChatStreamReader, add_span, is_chat_chunk
from adapters.openai_compatible.stream_text import StreamedPart
from adapters.stream_reader import StreamReaderBase
from router.citations import make_citation
from router.citations.build import citation_key
from router.stream_events import StreamEvent
from router.types import Citation, LLMRequest, Span

__all__ = ["OpenAIStreamReader", "ResponsesStreamReader", "is_responses_event"]

_FINAL_EVENTS = ("response.completed", "response.incomplete")
_TRANSIENT_CODES = ("server_error", "rate_limit_exceeded", "internal_error", "timeout")
_START_EVENTS = ("response.created", "response.in_progress", "response.queued")


def is_responses_event(value: Mapping[str, Any]) -> bool:
    """Whether ``value`` is a Responses API stream event (not a response body)."""
    kind = value.get("type")
    return isinstance(kind, str) and (kind.startswith("response.") or kind == "error")


class _Cited:
    """The evidence for one cited URL gathered from annotation events."""

    __slots__ = ("fields", "offsets", "raw", "spans")

    def __init__(self, raw: Mapping[str, Any], fields: Mapping[str, Any]) -> None:
        self.raw = raw
        self.fields = fields
        self.spans: list[Span] = []
        self.offsets: set[tuple[int, int]] = set()


class ResponsesStreamReader(StreamReaderBase):
    """Reads one Responses API stream (see the module docstring)."""

    label = "OpenAI"
    vendor = "openai"

    def __init__(self, request: LLMRequest) -> None:
        super().__init__(request, map_openai_reply)
        self._response: dict[str, Any] = {}
        self._final: dict[str, Any] | None = None
        self._items: dict[int, dict[str, Any]] = {}
        self._done: set[int] = set()
        self._parts: dict[tuple[int, int], StreamedPart] = {}
        self._annotations: dict[tuple[int, int], list[Any]] = {}
        self._held: dict[tuple[int, int], list[str]] = {}  # commentary text, by part
        self._open: tuple[int, int] | None = None
        self._announced: set[int] = set()
        self._cited: dict[str, _Cited] = {}
        self._ranks: dict[str, int] = {}

    def final_body(self) -> dict[str, Any]:
        if self._final is not None:
            return self._final
        output = [self._rebuilt_item(index) for index in sorted(self._items)]
        return {**self._response, "output": output}

    # -- reading -------------------------------------------------------------------------

    def _read(self, chunk: Mapping[str, Any]) -> None:
        kind = chunk.get("type")
        if kind == "response.output_text.delta":
            self._delta(chunk)
        elif kind == "response.output_text.annotation.added":
            self._annotation(chunk)
        elif kind in ("response.output_item.added", "response.output_item.done"):
            self._item(chunk, done=kind == "response.output_item.done")
        elif kind == "response.output_text.done":
            self._close_part(_where(chunk), chunk.get("text"))
        elif kind in _FINAL_EVENTS:
            response = chunk.get("response")
            if isinstance(response, dict):
                self._final = response
                self._completed()
            else:
                self.skipped += 1
        elif kind in _START_EVENTS:
            response = chunk.get("response")
            if isinstance(response, dict):
                self._response = {key: value for key, value in response.items() if key != "output"}
        elif kind == "response.failed":
            response = chunk.get("response")
            if isinstance(response, dict):
                if response.get("output"):
                    self._final = response
                else:  # the events hold what was said before it failed
                    self._response.update(
                        {key: value for key, value in response.items() if key != "output"}
                    )
            error = response.get("error") if isinstance(response, dict) else None
            self._error_event(error if isinstance(error, dict) else {})
        elif kind == "error":
            self._error_event(chunk)
        elif not isinstance(kind, str):
            self.skipped += 1

    def _error_event(self, error: Mapping[str, Any]) -> None:
        code, message = error.get("code"), error.get("message")
        said = message if isinstance(message, str) and message else "no message"
        self._failed(f"{said} (code {code})", transient=code in _TRANSIENT_CODES)

    def _delta(self, chunk: Mapping[str, Any]) -> None:
        where = _where(chunk)
        delta = chunk.get("delta")
        if where is None or not isinstance(delta, str):
            self.skipped += 1
            return
        if self._commentary(where[0]):
            self._held.setdefault(where, []).append(delta)
            return
        part = self._part(where)
        self.events.text(part.add(delta))

    def _part(self, where: tuple[int, int]) -> StreamedPart:
        part = self._parts.get(where)
        if part is None:
            if self._open is not None and self._open != where:
                self._close_part(self._open, None)
            part = self._parts[where] = StreamedPart(self.events.delivered)
            self._open = where
        return part

    def _close_part(self, where: tuple[int, int] | None, text: object) -> None:
        if where is None:
            return
        if self._commentary(where[0]):
            if isinstance(text, str):
                self._held[where] = [text]
            return
        part = self._parts.get(where)
        if part is None and isinstance(text, str):  # a part whose deltas never came
            part = self._part(where)
            self.events.text(part.add(text))
        if part is not None:
            self.events.text(part.close())
        if self._open == where:
            self._open = None

    def _annotation(self, chunk: Mapping[str, Any]) -> None:
        where = _where(chunk)
        annotation = chunk.get("annotation")
        if where is None or annotation is None:
            self.skipped += 1
            return
        self._annotations.setdefault(where, []).append(annotation)
        read = read_url_citation(annotation)
        if read is None or self._commentary(where[0]):
            return  # a file citation, or a commentary's source: the final body tells
        raw, fields, url = read
        part = self._parts.get(where)
        span = part.span(fields.get("start_index"), fields.get("end_index")) if part else None
        cited = self._cited.get(url)
        if cited is None:
            cited = self._cited[url] = _Cited(raw, fields)
        if span is not None:
            add_span(cited.spans, cited.offsets, span)
        title = cited.fields.get("title") or fields.get("title")
        snippet = cited.fields.get("content") or fields.get("content")
        citation = make_citation(
            provider="openai",
            url=url,
            title=title if isinstance(title, str) else None,
            snippet=snippet if isinstance(snippet, str) else None,
            raw=cited.raw,
            spans=cited.spans,
            cited=True,
            location=_url_citation_location(cited.fields),
        )
        if citation is not None:
            self._emit(citation)

    def _item(self, chunk: Mapping[str, Any], *, done: bool) -> None:
        index = chunk.get("output_index")
        item = chunk.get("item")
        if type(index) is not int or not isinstance(item, dict):
            self.skipped += 1
            return
        if index in self._done and not done:
            return
        self._items[index] = item
        if done:
            self._done.add(index)
        if item.get("type") == "web_search_call" and isinstance(item.get("action"), dict):
            self._search_call(index, item, done=done)
        elif done and item.get("type") == "message" and not self._commentary(index):
            content = item.get("content")
            for position, part in enumerate(content if isinstance(content, list) else ()):
                text = part.get("text") if isinstance(part, dict) else None
                self._close_part((index, position), text)

    def _search_call(self, index: int, item: dict[str, Any], *, done: bool) -> None:
        found = read_openai_reply({"output": [item]})
        queries = found.grounding.web_search_queries
        # Announced once its queries are known: an early action may come without them.
        if index not in self._announced and (done or queries):
            self._announced.add(index)
            self._announce(queries)
        for citation in found.citations:
            key = citation_key(citation)
            if key not in self._ranks:  # never turn a cited source back into a seen one
                self._emit(citation, key)

    def _emit(self, citation: Citation, key: str | None = None) -> None:
        key = key if key is not None else citation_key(citation)
        citation["rank"] = self._ranks.setdefault(key, len(self._ranks) + 1)
        self.events.citation(citation)

    # -- the final body ------------------------------------------------------------------

    def _commentary(self, index: int) -> bool:
        item = self._items.get(index)
        return item is not None and item.get("phase") == "commentary"

    def _rebuilt_item(self, index: int) -> dict[str, Any]:
        item = self._items[index]
        if index in self._done or item.get("type") != "message":
            return item
        wheres = sorted(where for where in {*self._parts, *self._held} if where[0] == index)
        content = []
        for where in wheres:
            part = self._parts.get(where)
            text = part.raw_text() if part is not None else "".join(self._held.get(where, []))
            content.append(
                {
                    "type": "output_text",
                    "text": text,
                    "annotations": self._annotations.get(where, []),
                }
            )
        return {**item, "content": content}


def _where(chunk: Mapping[str, Any]) -> tuple[int, int] | None:
    output_index, content_index = chunk.get("output_index"), chunk.get("content_index")
    if type(output_index) is int and type(content_index) is int:
        return output_index, content_index
    return None


class OpenAIStreamReader:
    """The OpenAI reader: Responses events, or Chat Completions chunks, as the stream shows."""

    def __init__(self, request: LLMRequest) -> None:
        self._request = request
        self._reader: ResponsesStreamReader | ChatStreamReader | None = None

    @staticmethod
    def is_stream_event(value: Mapping[str, Any]) -> bool:
        """A Responses event or a ``chat.completion.chunk``, not a final reply body."""
        return is_responses_event(value) or is_chat_chunk(value)

    @property
    def complete(self) -> bool:
        return self._reader is not None and self._reader.complete

    def feed(self, chunk: Mapping[str, Any]) -> Sequence[StreamEvent]:
        return self._pick(chunk).feed(chunk)

    def final_body(self) -> dict[str, Any]:
        return self._pick(None).final_body()

    def finish(self, *, strict: bool = True) -> AdapterResult:
        return self._pick(None).finish(strict=strict)

    def _pick(self, chunk: object) -> ResponsesStreamReader | ChatStreamReader:
        if self._reader is None:
            chat = isinstance(chunk, Mapping) and is_chat_chunk(chunk)
            self._reader = (ChatStreamReader if chat else ResponsesStreamReader)(self._request)
        return self._reader
