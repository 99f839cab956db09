"""The Perplexity stream reader: Sonar ``chat.completion.chunk`` events to router events.

Every chunk repeats the full ``citations`` and ``search_results`` lists (provider-quirks
section 4) beside its ``choices[0].delta.content`` piece; the last carries the
``finish_reason`` and the usage. So:

- each content piece goes out as a ``TextDelta``, but for a reasoning model's leading
  ``<think>`` block, which is held back (it is not part of the answer);
- the first chunk that lists sources announces one ``SearchStarted`` (Perplexity reports no
  queries);
- a ``[n]`` marker goes out, once its text has arrived, as a ``CitationDelta`` of source n with
  its spans so far; the markers are read from the new text only, and the sources again only
  when a chunk changes them, so a stream costs work in proportion to its length;
- the stream completes with the chunk that has a ``finish_reason``; a usage trailer after it is
  still read; an ``error`` chunk ends it as failed (transient for a 429 or 5xx code).

The final body is a Chat Completions body: the latest chunk's top-level fields (the sources,
the usage, the model), with one message whose content is the pieces joined.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.openai_compatible.stream import is_chat_chunk, usage_trailer
from adapters.perplexity.citations import _MARKER, read_perplexity_reply, sources_of
from adapters.perplexity.reasoning import ThinkFilter
from adapters.perplexity.reply import map_perplexity_reply
from adapters.stream_reader import StreamReaderBase
from router.citations.build import citation_key
from router.types import Citation, LLMRequest, Span

__all__ = ["PerplexityStreamReader"]

_SOURCE_KEYS = ("citations", "search_results")
_LONGEST_MARKER = 5  # "[" and up to four digits: the most of a marker a piece can end with


class PerplexityStreamReader(StreamReaderBase):
    """Reads one Sonar stream (see the module docstring)."""

    label = "Perplexity"
    vendor = "perplexity"

    def __init__(self, request: LLMRequest) -> None:
        super().__init__(request, map_perplexity_reply)
        self._envelope: dict[str, Any] = {}
        self._pieces: list[str] = []
        self._answer = ThinkFilter()
        self._finish_reason: str | None = None
        self._searched = False
        self._markers = _Markers()

    @staticmethod
    def is_stream_event(value: Mapping[str, Any]) -> bool:
        """A ``chat.completion.chunk`` (see :func:`is_chat_chunk`), not a complete reply."""
        return is_chat_chunk(value)

    def final_body(self) -> dict[str, Any]:
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": "".join(self._pieces)},
            "finish_reason": self._finish_reason,
        }
        return {**self._envelope, "object": "chat.completion", "choices": [choice]}

    def _trailer(self, chunk: Mapping[str, Any]) -> bool | None:
        return usage_trailer(self._envelope, chunk)

    def _read(self, chunk: Mapping[str, Any]) -> None:
        error = chunk.get("error")
        if isinstance(error, Mapping):
            code = error.get("code")
            message = error.get("message")
            said = message if isinstance(message, str) else str(error)[:200]
            transient = type(code) is int and (code == 429 or code >= 500)
            self._failed(f"{said} (code {code})", transient=transient)
            return
        sources_before = tuple(self._envelope.get(key) for key in _SOURCE_KEYS)
        for key, value in chunk.items():
            if key != "choices":
                self._envelope[key] = value
        touched: set[str] = set()
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            piece = delta.get("content") if isinstance(delta, Mapping) else None
            if isinstance(piece, str) and piece:
                self._pieces.append(piece)
                shown = self._answer.feed(piece)
                if shown:
                    self.events.text(shown)
                    touched |= self._markers.add(shown)
            reason = choice.get("finish_reason")
            if isinstance(reason, str):
                self._finish_reason = reason
        sources = tuple(self._envelope.get(key) for key in _SOURCE_KEYS)
        if sources != sources_before:
            touched |= self._markers.sources_changed(self._envelope)
        if not self._searched and any(isinstance(s, list) and s for s in sources):
            self._searched = True
            self._announce([])
        if self._finish_reason is not None:
            rest = self._answer.flush()
            if rest:
                self.events.text(rest)
            self._completed()
        else:
            for citation in self._markers.citations(touched):
                self.events.citation(citation)


class _Markers:
    """The ``[n]`` markers of the answer so far, read once each as the text arrives.

    The sources are read again only when a chunk changes them (Sonar repeats the same lists in
    every chunk); the answer text is scanned once, a possible marker cut between two pieces
    kept until the next. So the work of a stream grows with its length, never with its square.
    The citations given are those the final reply's mapping gives, with the spans so far.
    """

    __slots__ = ("_keys", "_offset", "_spans", "_tail", "_templates", "marks")

    def __init__(self) -> None:
        self.marks: dict[int, list[Span]] = {}  # 1-based marker number -> its spans
        self._tail = ""  # the end of the text so far that may begin a marker
        self._offset = 0  # characters of answer text before the tail
        self._keys: dict[int, str] = {}  # marker number -> the citation key of its source
        self._templates: dict[str, Citation] = {}  # citation key -> the cited citation
        self._spans: dict[str, list[Span]] = {}

    def add(self, text: str) -> set[str]:
        """Read the markers ``text`` completes; the keys of the sources they cite."""
        scanned = self._tail + text
        touched: set[str] = set()
        last = 0
        for match in _MARKER.finditer(scanned):
            start, end = match.span()
            span: Span = {
                "start": self._offset + start,
                "end": self._offset + end,
                "text": match[0],
            }
            number = int(match[1])
            self.marks.setdefault(number, []).append(span)
            key = self._keys.get(number)
            if key is not None:
                self._spans.setdefault(key, []).append(span)
                touched.add(key)
            last = end
        opening = scanned.rfind("[", last)
        keep = opening != -1 and len(scanned) - opening <= _LONGEST_MARKER
        keep = keep and (scanned[opening + 1 :].isdigit() or opening == len(scanned) - 1)
        self._tail = scanned[opening:] if keep else ""
        self._offset += len(scanned) - len(self._tail)
        return touched

    def sources_changed(self, envelope: Mapping[str, Any]) -> set[str]:
        """Read the sources again: each marker number's source and its cited citation."""
        count = len(sources_of(envelope))
        every = "".join(f"[{number}]" for number in range(1, count + 1))
        body = {**envelope, "choices": [{"index": 0, "message": {"content": every}}]}
        self._keys, self._templates, self._spans = {}, {}, {}
        for citation in read_perplexity_reply(body).citations:
            key = citation_key(citation)
            self._templates[key] = citation
            for span in citation["spans"]:
                self._keys[int(span["text"][1:-1])] = key
        for number, spans in self.marks.items():
            source = self._keys.get(number)
            if source is not None:
                self._spans.setdefault(source, []).extend(spans)
        for spans in self._spans.values():
            spans.sort(key=lambda span: (span["start"], span["end"]))
        return set(self._spans)

    def citations(self, keys: set[str]) -> list[Citation]:
        """The citations of ``keys``' sources with the spans so far, in rank order."""
        found: list[Citation] = []
        for key in keys:
            citation = self._templates[key].copy()
            citation["spans"] = list(self._spans[key])
            found.append(citation)
        found.sort(key=lambda citation: citation["rank"] or 0)
        return found
