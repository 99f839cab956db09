"""The Anthropic stream reader: Messages SSE events to router events.

A Messages stream is ``message_start`` (the message with empty ``content``), then per content
block ``content_block_start`` (the block as it begins), ``content_block_delta``s and
``content_block_stop``, then ``message_delta`` (stop reason, final usage) and ``message_stop``;
``ping`` events come in between. Deltas are ``text_delta`` (answer text), ``citations_delta``
(one citation of the text block, arriving before its text: provider-quirks section 3) and
``input_json_delta`` (pieces of a ``server_tool_use`` block's input JSON).

- Text blocks' ``text_delta``s go out as ``TextDelta`` as they arrive: concatenated, they are
  the answer, as for a final body (a blank line between turns a search separates, as there).
- A ``web_search`` ``server_tool_use`` block is one ``SearchStarted`` with its query once its
  input is complete (at its ``content_block_stop``).
- When a text block that carries citations stops, its citations go out as ``CitationDelta``
  (its text is delivered by then, so its span is too), read from that block and the search
  blocks only, so every block is read once, whatever the length of the message.
- ``message_stop`` completes the stream; the base class maps the final message and reconciles
  the events with it (the uncited search results arrive then). Events after it are ignored
  (and said in the result's warnings): the answer is what came before it.

The final body is the message the events build: blocks as started, text and citations appended,
the tool input parsed from its JSON pieces, stop reason and usage from ``message_delta``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.anthropic.citations import (
    WEB_SEARCH_TOOL_NAME,
    extract_anthropic_citations,
    turn_separator,
)
from adapters.anthropic.reply import map_anthropic_reply
from adapters.stream_reader import StreamReaderBase
from router.citations.build import citation_key
from router.types import LLMRequest, Span

__all__ = ["AnthropicStreamReader"]

_EVENT_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)


class AnthropicStreamReader(StreamReaderBase):
    """Reads one Messages stream (see the module docstring)."""

    label = "Anthropic"

    def __init__(self, request: LLMRequest) -> None:
        super().__init__(request, map_anthropic_reply)
        self._message: dict[str, Any] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self._input_json: dict[int, str] = {}
        # The last character of answer text delivered, and whether a block other than text
        # came since: the next text is then a new turn, kept apart as the final reply is.
        self._tail = ""
        self._after_other_block = False
        self._text_starts: dict[int, int] = {}  # a text block's first character in the answer
        self._context: list[int] = []  # the blocks that are not text (searches, results)
        self._cited_spans: dict[str, list[Span]] = {}

    @staticmethod
    def is_stream_event(value: Mapping[str, Any]) -> bool:
        """A stream event has one of the Messages stream's event types."""
        return value.get("type") in _EVENT_TYPES

    def final_body(self) -> dict[str, Any]:
        content = []
        for index in sorted(self._blocks):
            block = dict(self._blocks[index])
            if index in self._input_json:
                block["input"] = _parsed_input(self._input_json[index], block.get("input"))
            content.append(block)
        return {**self._message, "content": content}

    def _trailer(self, chunk: Mapping[str, Any]) -> bool | None:
        """Nothing follows ``message_stop`` but keep-alive pings; anything else is ignored."""
        return None if chunk.get("type") == "ping" else False

    def _read(self, chunk: Mapping[str, Any]) -> None:
        kind = chunk.get("type")
        if kind == "message_start":
            message = chunk.get("message")
            if not isinstance(message, Mapping):
                raise TypeError("message_start without a message")
            self._message = {k: v for k, v in message.items() if k != "content"}
        elif kind == "content_block_start":
            block = chunk.get("content_block")
            if not isinstance(block, Mapping):
                raise TypeError("content_block_start without a block")
            index = _index(chunk)
            self._blocks[index] = dict(block)
            if block.get("type") != "text":
                self._after_other_block = True
                self._context.append(index)
        elif kind == "content_block_delta":
            self._delta(_index(chunk), chunk.get("delta"))
        elif kind == "content_block_stop":
            self._stopped(_index(chunk))
        elif kind == "message_delta":
            delta = chunk.get("delta")
            if isinstance(delta, Mapping):
                self._message.update(delta)
            usage = chunk.get("usage")
            if isinstance(usage, Mapping):
                known = self._message.get("usage")
                self._message["usage"] = {**(known if isinstance(known, Mapping) else {}), **usage}
        elif kind == "message_stop":
            self._completed()
        elif kind == "error":
            error = chunk.get("error")
            message = error.get("message") if isinstance(error, Mapping) else None
            self._warnings.append(f"Anthropic stream: error event: {message or chunk}")
        elif kind != "ping":
            raise TypeError(f"unknown event type {kind!r}")

    def _delta(self, index: int, delta: object) -> None:
        block = self._blocks[index]
        if not isinstance(delta, Mapping):
            raise TypeError("content_block_delta without a delta")
        kind = delta.get("type")
        if kind == "text_delta":
            piece = delta.get("text")
            if not isinstance(piece, str):
                raise TypeError("text_delta without text")
            block["text"] = str(block.get("text") or "") + piece
            if block.get("type") == "text" and piece:
                if self._after_other_block:
                    self._after_other_block = False
                    if separator := turn_separator(self._tail, piece):
                        self.events.text(separator)
                # Where the block starts in the answer: after any separator put before it.
                self._text_starts.setdefault(index, self.events.delivered)
                self.events.text(piece)
                self._tail = piece[-1]
        elif kind == "citations_delta":
            citations = block.get("citations")
            block["citations"] = [
                *(citations if isinstance(citations, list) else ()),
                delta.get("citation"),
            ]
        elif kind == "input_json_delta":
            piece = delta.get("partial_json")
            self._input_json[index] = self._input_json.get(index, "") + (
                piece if isinstance(piece, str) else ""
            )

    def _stopped(self, index: int) -> None:
        block = self._blocks[index]
        kind = block.get("type")
        if kind == "server_tool_use" and block.get("name") == WEB_SEARCH_TOOL_NAME:
            tool_input = _parsed_input(self._input_json.get(index, ""), block.get("input"))
            query = tool_input.get("query") if isinstance(tool_input, Mapping) else None
            self._announce([query.strip()] if isinstance(query, str) and query.strip() else [])
        elif kind == "text" and block.get("citations"):
            self._cite_block(index, block)

    def _cite_block(self, index: int, block: Mapping[str, Any]) -> None:
        """The citations of one text block that stopped, read from it and the search blocks
        alone (so each block is read once): its spans moved to where the block starts in the
        answer, added to those earlier blocks gave the same source."""
        context = [self._blocks[position] for position in self._context]
        start = self._text_starts.get(index, self.events.delivered)
        body = {**self._message, "content": [*context, block]}
        for citation in extract_anthropic_citations(body):
            if not citation["cited"]:
                continue
            spans = self._cited_spans.setdefault(citation_key(citation), [])
            spans.extend(
                {"start": span["start"] + start, "end": span["end"] + start, "text": span["text"]}
                for span in citation["spans"]
            )
            self.events.citation({**citation, "spans": list(spans)})


def _index(chunk: Mapping[str, Any]) -> int:
    index = chunk.get("index")
    if type(index) is not int or index < 0:
        raise TypeError("an event without a block index")
    return index


def _parsed_input(text: str, started: object) -> object:
    """A tool block's input: its streamed JSON when there was any, else what the start held."""
    if not text:
        return started
    try:
        return json.loads(text)
    except ValueError:
        return started
