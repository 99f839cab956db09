"""The Perplexity stream reader: Sonar ``chat.completion.chunk`` events to router events.

Every chunk repeats the full ``citations`` and ``search_results`` lists (provider-quirks
section 4) beside its ``choices[0].delta.content`` piece; the last carries the
``finish_reason`` and the usage. So:

- each content piece goes out as a ``TextDelta``, but for a reasoning model's leading
  ``<think>`` block, which is held back (it is not part of the answer);
- the first chunk that lists sources announces one ``SearchStarted`` (Perplexity reports no
  queries);
- after a chunk that adds text or changes the sources, the citations of the reply so far go
  out as ``CitationDelta`` (a ``[n]`` marker's span is there once its text has arrived);
- the stream completes with the chunk that has a ``finish_reason``; a usage trailer after it is
  still read; an ``error`` chunk ends it as failed (transient for a 429 or 5xx code).

The final body is a Chat Completions body: the latest chunk's top-level fields (the sources,
the usage, the model), with one message whose content is the pieces joined.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.openai_compatible.stream import chunk_says_something, is_chat_chunk
from adapters.perplexity.citations import read_perplexity_reply
from adapters.perplexity.reasoning import ThinkFilter
from adapters.perplexity.reply import map_perplexity_reply
from adapters.stream_reader import StreamReaderBase
from router.types import LLMRequest

__all__ = ["PerplexityStreamReader"]

_SOURCE_KEYS = ("citations", "search_results")


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
        """After the finish reason only the usage may come; text or new sources are ignored."""
        if chunk_says_something(chunk):
            return False
        usage = chunk.get("usage")
        if usage is None:
            return None
        self._envelope["usage"] = usage
        return True

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
        grew = False
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
                    grew = True
            reason = choice.get("finish_reason")
            if isinstance(reason, str):
                self._finish_reason = reason
        sources = tuple(self._envelope.get(key) for key in _SOURCE_KEYS)
        if not self._searched and any(isinstance(s, list) and s for s in sources):
            self._searched = True
            self._announce([])
        if self._finish_reason is not None:
            rest = self._answer.flush()
            if rest:
                self.events.text(rest)
            self._completed()
        elif grew or sources != sources_before:
            for citation in read_perplexity_reply(self.final_body()).citations:
                self.events.citation(citation)
