"""Every stream reader's work grows in proportion to the stream, never with its square.

Each reader reads a grounded stream of N text chunks that cite as they go, and then one of 2N
chunks. The work is counted in Python calls and lines executed while the reader feeds and
finishes (``sys.settrace``: deterministic, unlike time); doubling the stream may at most
roughly double it. A reader that re-read the whole reply at every chunk (as the Perplexity
reader did) does about four times the work for twice the chunks.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from router.extraction import offline_request
from router.streaming.accumulator import open_stream_reader

Chunks = list[dict[str, Any]]
URLS = [f"https://source{n}.example.org/page/{n}" for n in range(5)]
BASE = 300
MOST_RATIO = 2.3


def _perplexity(count: int) -> Chunks:
    results = [
        {"title": f"Source {n}", "url": url, "snippet": f"snippet {n}"}
        for n, url in enumerate(URLS)
    ]
    envelope = {"id": "x", "model": "sonar", "citations": URLS, "search_results": results}
    chunks = [
        {
            **envelope,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": f"Fact {i} holds[{i % 5 + 1}]. "}}],
        }
        for i in range(count)
    ]
    done = {"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}
    return [*chunks, {**envelope, "object": "chat.completion.done", "choices": [done]}]


def _chat(count: int) -> Chunks:
    chunks: Chunks = []
    offset = 0
    for i in range(count):
        piece = f"Fact {i} holds. "
        annotation = {
            "type": "url_citation",
            "url_citation": {
                "url": URLS[i % 5],
                "title": f"Source {i % 5}",
                "start_index": offset,
                "end_index": offset + len(piece) - 1,
            },
        }
        offset += len(piece)
        delta = {"content": piece, "annotations": [annotation]}
        chunks.append(
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "model": "m",
                "choices": [{"index": 0, "delta": delta}],
            }
        )
    finish = {"index": 0, "delta": {}, "finish_reason": "stop"}
    chunks.append({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [finish]})
    return chunks


def _responses(count: int) -> Chunks:
    events: Chunks = [
        {"type": "response.created", "response": {"id": "r", "model": "gpt-5", "output": []}},
    ]
    search = {
        "type": "web_search_call",
        "id": "ws",
        "status": "completed",
        "action": {
            "type": "search",
            "query": "q",
            "sources": [{"type": "url", "url": u} for u in URLS],
        },
    }
    events.append({"type": "response.output_item.done", "output_index": 0, "item": search})
    message = {
        "type": "message",
        "id": "m",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    events.append({"type": "response.output_item.added", "output_index": 1, "item": message})
    text, annotations = "", []
    for i in range(count):
        piece = f"Fact {i} holds. "
        where = {"output_index": 1, "content_index": 0, "item_id": "m"}
        events.append({"type": "response.output_text.delta", **where, "delta": piece})
        annotation = {
            "type": "url_citation",
            "url": URLS[i % 5],
            "title": f"Source {i % 5}",
            "start_index": len(text),
            "end_index": len(text) + len(piece) - 1,
        }
        text += piece
        annotations.append(annotation)
        events.append(
            {
                "type": "response.output_text.annotation.added",
                **where,
                "annotation_index": i,
                "annotation": annotation,
            }
        )
    done = {
        **message,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": annotations}],
    }
    final = {"id": "r", "model": "gpt-5", "status": "completed", "output": [search, done]}
    events.append({"type": "response.completed", "response": final})
    return events


def _anthropic(count: int) -> Chunks:
    results = [
        {"type": "web_search_result", "url": url, "title": f"Source {n}", "encrypted_content": "e"}
        for n, url in enumerate(URLS)
    ]
    events: Chunks = [
        {
            "type": "message_start",
            "message": {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "model": "claude",
                "content": [],
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "server_tool_use",
                "id": "t",
                "name": "web_search",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "q"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "web_search_tool_result",
                "tool_use_id": "t",
                "content": results,
            },
        },
        {"type": "content_block_stop", "index": 1},
    ]
    for i in range(count):
        index = i + 2
        citation = {
            "type": "web_search_result_location",
            "url": URLS[i % 5],
            "title": f"Source {i % 5}",
            "cited_text": f"passage {i}",
            "encrypted_index": "e",
        }
        events += [
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": "", "citations": []},
            },
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "citations_delta", "citation": citation},
            },
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": f"Fact {i} holds. "},
            },
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": count},
        },
        {"type": "message_stop"},
    ]
    return events


def _google(count: int) -> Chunks:
    chunks: Chunks = []
    supports = []
    offset = 0
    for i in range(count):
        piece = f"Fact {i} holds. "
        supports.append(
            {
                "segment": {
                    "startIndex": offset,
                    "endIndex": offset + len(piece) - 1,
                    "text": piece[:-1],
                },
                "groundingChunkIndices": [i % 5],
            }
        )
        offset += len(piece)
        candidate = {
            "index": 0,
            "content": {"role": "model", "parts": [{"text": piece}]},
            "groundingMetadata": {},
        }
        chunks.append({"candidates": [candidate], "modelVersion": "gemini-2.5-flash"})
    grounding = {
        "webSearchQueries": ["q"],
        "groundingChunks": [
            {"web": {"uri": url, "title": f"source{n}.example.org"}} for n, url in enumerate(URLS)
        ],
        "groundingSupports": supports,
    }
    last = {
        "index": 0,
        "content": {"role": "model", "parts": []},
        "finishReason": "STOP",
        "groundingMetadata": grounding,
    }
    chunks.append({"candidates": [last], "modelVersion": "gemini-2.5-flash"})
    return chunks


STREAMS: dict[str, Callable[[int], Chunks]] = {
    "perplexity": _perplexity,
    "openrouter": _chat,
    "openai": _responses,
    "anthropic": _anthropic,
    "gemini": _google,
    "vertex": _google,
}
CHAT_THROUGH_OPENAI = ("openai", _chat)


def _work(vendor: str, chunks: Chunks) -> int:
    """Python calls and lines run while ``vendor``'s reader feeds ``chunks`` and finishes."""
    reader = open_stream_reader(vendor, offline_request(vendor))
    count = 0

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        for chunk in chunks:
            reader.feed(chunk)
        result = reader.finish(strict=False)
    finally:
        sys.settrace(previous)
    assert result.citations
    return count


@pytest.mark.parametrize(
    ("vendor", "stream"),
    [*STREAMS.items(), CHAT_THROUGH_OPENAI],
    ids=[*STREAMS, "openai-chat"],
)
def test_twice_the_chunks_cost_at_most_about_twice_the_work(
    vendor: str, stream: Callable[[int], Chunks]
) -> None:
    """Reading 2N chunks costs at most 2.3 times the work of reading N."""
    _work(vendor, stream(10))  # first use loads and caches what every later read shares
    once = _work(vendor, stream(BASE))
    twice = _work(vendor, stream(2 * BASE))
    assert twice <= MOST_RATIO * once, (vendor, once, twice, twice / once)
