"""Chat Completions streams with citations: OpenAI's search-preview models, and OpenRouter.

A ``chat.completion.chunk`` carries ``choices[].delta``: ``content`` (the next text),
``annotations`` (``url_citation`` entries nested as in the final message, offsets into the
whole message text; OpenRouter sets both offsets to 0 and adds the page text), ``refusal``;
and ``finish_reason`` on the choice when it ends. Usage may come in a last chunk without
choices. ``data: [DONE]`` ends the SSE body (it is not JSON, so it never reaches a reader).

Only the first choice is the answer, as for the final body. Its text goes out as ``TextDelta``
with the citation tokens removed as the final mapping removes them; each annotation goes out as
a cited ``CitationDelta`` once the text it spans has been delivered. The final body is the
``chat.completion`` the chunks add up to: the message's text concatenated and its annotations
in arrival order (an annotation repeated verbatim is kept once). The stream completes when the
first choice has a ``finish_reason``; :func:`map_compatible_reply` maps the final body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.base import ReplyMapper
from adapters.openai_compatible.annotations import read_url_citation
from adapters.openai_compatible.citations import _url_citation_location
from adapters.openai_compatible.errors import OPENAI, OpenAIService
from adapters.openai_compatible.reply import map_compatible_reply
from adapters.openai_compatible.stream_text import StreamedPart
from adapters.stream_reader import StreamReaderBase
from router.citations import make_citation
from router.citations.build import citation_key
from router.types import LLMRequest, Span

__all__ = [
    "ChatStreamReader",
    "add_span",
    "chunk_says_something",
    "is_chat_chunk",
    "usage_trailer",
]


def is_chat_chunk(value: Mapping[str, Any]) -> bool:
    """Whether ``value`` is a stream chunk of a chat completion, not a complete reply.

    The ``object`` field says what a body is: ``chat.completion`` for a complete reply, and
    ``chat.completion.chunk`` (Perplexity ends with ``chat.completion.done``) for a stream
    chunk. Only a body without it is told by its first choice: a ``delta`` and no ``message``.
    A complete reply may carry a ``delta`` beside its ``message`` (Perplexity's always do), and
    a Perplexity chunk carries the ``message`` so far beside its ``delta``: neither key alone
    says which the body is.
    """
    kind = value.get("object")
    if isinstance(kind, str) and kind.startswith("chat.completion"):
        return kind != "chat.completion"
    choices = value.get("choices")
    return (
        isinstance(choices, list)
        and bool(choices)
        and isinstance(choices[0], Mapping)
        and "delta" in choices[0]
        and "message" not in choices[0]
    )


def add_span(spans: list[Span], kept: set[tuple[int, int]], span: Span) -> None:
    """Add ``span`` to a source's ``spans`` (kept in order) unless it holds one of its offsets
    already; ``kept`` holds their offsets, so a source cited many times costs no rescan."""
    where = (span["start"], span["end"])
    if where in kept:
        return
    kept.add(where)
    ordered = not spans or (spans[-1]["start"], spans[-1]["end"]) < where
    spans.append(span)
    if not ordered:
        spans.sort(key=lambda known: (known["start"], known["end"]))


def chunk_says_something(chunk: Mapping[str, Any]) -> bool:
    """Whether a chunk's choices carry answer text, a refusal or annotations."""
    choices = chunk.get("choices")
    for choice in choices if isinstance(choices, list) else ():
        delta = choice.get("delta") if isinstance(choice, Mapping) else None
        if isinstance(delta, Mapping) and any(
            delta.get(key) for key in ("content", "refusal", "annotations")
        ):
            return True
    return False


def usage_trailer(envelope: dict[str, Any], chunk: Mapping[str, Any]) -> bool | None:
    """A chat-completions reader's ``_trailer``: after the finish reason only the usage may come
    (a chunk without choices), kept in ``envelope``; text or new sources are not read."""
    if chunk_says_something(chunk):
        return False
    usage = chunk.get("usage")
    if usage is None:
        return None
    envelope["usage"] = usage
    return True


class ChatStreamReader(StreamReaderBase):
    """Reads one Chat Completions stream (see the module docstring)."""

    label = "OpenAI chat"
    vendor = "openai"
    # Another OpenAI-compatible API's reader (OpenRouter's) names its service and mapper here.
    _service: OpenAIService = OPENAI
    _mapper_of_service: ReplyMapper = staticmethod(map_compatible_reply)

    def __init__(self, request: LLMRequest) -> None:
        super().__init__(request, self._mapper_of_service)
        self._envelope: dict[str, Any] = {}
        self._part = StreamedPart(0)
        self._annotations: list[Any] = []
        self._annotation_keys: set[str] = set()
        self._refusal: list[str] = []
        self._role = "assistant"
        self._finish_reason: object = None
        self._spans: dict[str, list[Span]] = {}
        self._span_keys: dict[str, set[tuple[int, int]]] = {}
        self._ranks: dict[str, int] = {}
        self._waiting: list[Any] = []  # annotations whose text is not delivered yet

    @staticmethod
    def is_stream_event(value: Mapping[str, Any]) -> bool:
        """A ``chat.completion.chunk`` (see :func:`is_chat_chunk`)."""
        return is_chat_chunk(value)

    def final_body(self) -> dict[str, Any]:
        message: dict[str, Any] = {
            "role": self._role,
            "content": self._part.raw_text(),
            "annotations": list(self._annotations),
        }
        if self._refusal:
            message["refusal"] = "".join(self._refusal)
        choice = {"index": 0, "message": message, "finish_reason": self._finish_reason}
        return {**self._envelope, "object": "chat.completion", "choices": [choice]}

    def _read(self, chunk: Mapping[str, Any]) -> None:
        for key in ("id", "created", "model", "system_fingerprint", "service_tier", "usage"):
            if chunk.get(key) is not None:
                self._envelope[key] = chunk[key]
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if not isinstance(choice, dict):
                self.skipped += 1
                continue
            if choice.get("index", 0) != 0:
                continue  # n > 1 is not something the router asks; the first choice answers
            self._choice(choice)

    def _trailer(self, chunk: Mapping[str, Any]) -> bool | None:
        return usage_trailer(self._envelope, chunk)

    def _choice(self, choice: Mapping[str, Any]) -> None:
        delta = choice.get("delta")
        if isinstance(delta, dict):
            if isinstance(delta.get("role"), str):
                self._role = delta["role"]
            content = delta.get("content")
            if isinstance(content, str):
                self.events.text(self._part.add(content))
            if isinstance(delta.get("refusal"), str):
                self._refusal.append(delta["refusal"])
            annotations = delta.get("annotations")
            for annotation in annotations if isinstance(annotations, list) else ():
                self._annotation(annotation)
        elif delta is not None:
            self.skipped += 1
        if choice.get("finish_reason") is not None:
            self._finish_reason = choice["finish_reason"]
            self.events.text(self._part.close())
            self._completed()
        elif self._waiting:
            for annotation in self._take_waiting():
                self._cite(annotation)

    def _annotation(self, annotation: object) -> None:
        try:
            key = json.dumps(annotation, sort_keys=True, default=repr)
        except (TypeError, ValueError):
            key = repr(annotation)
        if key in self._annotation_keys:
            return
        self._annotation_keys.add(key)
        self._annotations.append(annotation)
        self._cite(annotation)

    def _take_waiting(self) -> list[Any]:
        waiting, self._waiting = self._waiting, []
        return waiting

    def _cite(self, annotation: object) -> None:
        read = read_url_citation(annotation)
        if read is None:
            return
        raw, fields, url = read
        start, end = fields.get("start_index"), fields.get("end_index")
        span = self._part.span(start, end)
        if span is None and type(end) is int and end > self._part.raw_length:
            self._waiting.append(annotation)  # its text has not arrived yet
        spans = self._spans.setdefault(url, [])
        if span is not None:
            add_span(spans, self._span_keys.setdefault(url, set()), span)
        title, snippet = fields.get("title"), fields.get("content")
        citation = make_citation(
            provider=self._service.vendor,
            url=url,
            title=title if isinstance(title, str) else None,
            snippet=snippet if isinstance(snippet, str) else None,
            raw=raw,
            spans=spans,
            cited=True,
            location=_url_citation_location(fields),
        )
        if citation is not None:
            key = citation_key(citation)
            citation["rank"] = self._ranks.setdefault(key, len(self._ranks) + 1)
            self.events.citation(citation)
