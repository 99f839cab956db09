"""Chat Completions streams (search-preview models, OpenRouter) read like their final bodies."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.openai.reply import map_openai_reply
from adapters.openai.stream import OpenAIStreamReader
from adapters.openai_compatible.stream import ChatStreamReader, is_chat_chunk
from router.extraction import offline_request
from router.streaming.events import CitationDelta, StreamEvent, TextDelta
from support.recorded import load_final_body, recorded_files

BODIES = recorded_files(
    "ruby_llm/openai_chat_gpt4o_mini_search_preview_url_citations.json",
    "pydantic-ai/openrouter_chat_completions_url_citation.normalized.json",
)


def _chunks(body: dict[str, Any], *, annotations_first: bool) -> list[dict[str, Any]]:
    """The stream that delivers ``body``: role, text in pieces, annotations, finish reason."""
    message = body["choices"][0]["message"]
    text: str = message["content"]
    envelope = {"id": body["id"], "object": "chat.completion.chunk", "model": body["model"]}
    chunks = [{**envelope, "choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    notes = {"annotations": message.get("annotations", [])}
    if annotations_first:
        chunks.append({**envelope, "choices": [{"index": 0, "delta": notes}]})
    for start in range(0, len(text), 17):
        delta = {"content": text[start : start + 17]}
        chunks.append({**envelope, "choices": [{"index": 0, "delta": delta}]})
    last = {} if annotations_first else notes
    chunks.append({**envelope, "choices": [{"index": 0, "delta": last, "finish_reason": "stop"}]})
    chunks.append({**envelope, "choices": [], "usage": body.get("usage")})
    return chunks


def _read(chunks: list[dict[str, Any]]) -> tuple[OpenAIStreamReader, list[StreamEvent]]:
    reader = OpenAIStreamReader(offline_request("openai"))
    events = [event for chunk in chunks for event in reader.feed(chunk)]
    return reader, events


@pytest.mark.parametrize("path", BODIES, ids=lambda path: path.name)
@pytest.mark.parametrize("annotations_first", [False, True], ids=["last", "first"])
def test_a_chat_stream_reads_as_its_final_body(path: Any, annotations_first: bool) -> None:
    """Text, citations and spans equal the final body's, wherever the annotations come."""
    body = load_final_body(path)
    reader, events = _read(_chunks(body, annotations_first=annotations_first))
    expected = map_openai_reply(body, offline_request("openai"))
    result = reader.finish()
    assert reader.complete
    assert result.content == expected.content
    assert result.citations == expected.citations
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == expected.content


@pytest.mark.parametrize("path", BODIES, ids=lambda path: path.name)
def test_chat_citation_spans_follow_the_delivered_text(path: Any) -> None:
    """Annotations sent before their text get their spans once the text is delivered."""
    body = load_final_body(path)
    _, events = _read(_chunks(body, annotations_first=True))
    delivered = ""
    for event in events:
        if isinstance(event, TextDelta):
            delivered += event.text
        elif isinstance(event, CitationDelta):
            for span in event.citation["spans"]:
                assert delivered[span["start"] : span["end"]] == span["text"]


def test_chat_chunks_are_told_from_chat_bodies() -> None:
    """A chunk has a delta; a final chat.completion has a message."""
    body = load_final_body(BODIES[0])
    assert not is_chat_chunk(body)
    assert all(is_chat_chunk(chunk) for chunk in _chunks(body, annotations_first=False))
    assert not ChatStreamReader(offline_request("openai")).complete


def test_a_chat_sse_text_is_extracted() -> None:
    """extract() reads a chat stream's SSE text, [DONE] included, as its final body."""
    from router import extract

    body = load_final_body(BODIES[0])
    text = "".join(
        f"data: {json.dumps(chunk)}\n\n" for chunk in _chunks(body, annotations_first=False)
    )
    response = extract("openai", text + "data: [DONE]\n\n")
    assert response.content == body["choices"][0]["message"]["content"]
    assert response.metadata["warnings"] == []
