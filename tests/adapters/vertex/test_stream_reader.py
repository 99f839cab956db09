"""The Vertex stream reader on chunks shaped as Gemini sends them, thoughts and all."""

from __future__ import annotations

from typing import Any

from adapters.vertex.stream import VertexStreamReader
from router.extraction import offline_request
from router.streaming.events import CitationDelta, SearchStarted, StreamEvent, TextDelta

FIRST = "Café prices rose 5%. "
SECOND = "Tea fell."


def _segment(before: str, text: str) -> dict[str, Any]:
    start = len(before.encode())
    return {"startIndex": start, "endIndex": start + len(text.encode()), "text": text}


GROUNDING = {
    "webSearchQueries": ["cafe prices"],
    "groundingChunks": [{"web": {"uri": "https://example.com/prices", "title": "example.com"}}],
    "groundingSupports": [
        {"segment": _segment("", FIRST.strip()), "groundingChunkIndices": [0]},
        {"segment": _segment(FIRST, SECOND), "groundingChunkIndices": [0]},
    ],
}
CHUNKS: list[dict[str, Any]] = [
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hm.", "thought": True}]}}]},
    {"candidates": [{"content": {"parts": [{"text": FIRST, "thoughtSignature": "c2ln"}]}}]},
    {
        "candidates": [
            {
                "content": {"parts": [{"text": "Check tea.", "thought": True}]},
                "groundingMetadata": GROUNDING,
            }
        ]
    },
    {
        "candidates": [{"content": {"parts": [{"text": SECOND}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 9, "totalTokenCount": 14},
    },
]


def _read(chunks: list[dict[str, Any]]) -> tuple[VertexStreamReader, list[list[StreamEvent]]]:
    reader = VertexStreamReader(offline_request("vertex"))
    return reader, [list(reader.feed(chunk)) for chunk in chunks]


def test_thought_parts_are_not_the_answer() -> None:
    """Only answer text goes out; thoughts interleaved with it are left out."""
    reader, per_chunk = _read(CHUNKS)
    texts = [e.text for events in per_chunk for e in events if isinstance(e, TextDelta)]
    assert texts == [FIRST, SECOND]
    assert reader.finish().content == FIRST + SECOND


def test_grounding_in_a_middle_chunk_streams_what_the_text_allows() -> None:
    """Metadata before the text it supports: the delivered span now, the other at the end."""
    reader, per_chunk = _read(CHUNKS)
    (early,) = [e for e in per_chunk[2] if isinstance(e, CitationDelta)]
    assert [span["text"] for span in early.citation["spans"]] == ["Café prices rose 5%."]
    (late,) = [e for e in per_chunk[3] if isinstance(e, CitationDelta)]
    assert [span["text"] for span in late.citation["spans"]] == ["Café prices rose 5%.", SECOND]
    assert late.citation == reader.finish().citations[0]


def test_byte_offsets_become_character_spans() -> None:
    """Segment offsets are UTF-8 bytes over the whole answer; spans are characters."""
    reader, _ = _read(CHUNKS)
    (citation,) = reader.finish().citations
    assert [(span["start"], span["end"]) for span in citation["spans"]] == [
        (0, len(FIRST.strip())),
        (len(FIRST), len(FIRST) + len(SECOND)),
    ]


def test_the_search_is_announced_when_its_metadata_arrives() -> None:
    """One SearchStarted with the queries, in the chunk that carried them."""
    _, per_chunk = _read(CHUNKS)
    searches = [
        (i, e) for i, events in enumerate(per_chunk) for e in events if isinstance(e, SearchStarted)
    ]
    assert searches == [(2, SearchStarted(("cafe prices",)))]


def test_the_final_body_keeps_thoughts_apart_from_the_answer() -> None:
    """Merged parts: answer text joined, thoughts kept as parts of their own, usage last."""
    reader, _ = _read(CHUNKS)
    body = reader.final_body()
    parts = body["candidates"][0]["content"]["parts"]
    assert [part.get("thought", False) for part in parts] == [True, False, True, False]
    assert body["usageMetadata"]["totalTokenCount"] == 14


def test_a_stream_without_finish_reason_is_incomplete() -> None:
    """Without a finishReason the reader is not complete, and its result says so."""
    reader, _ = _read(CHUNKS[:-1])
    assert not reader.complete
    assert any("ended before its last event" in w for w in reader.finish(strict=False).warnings)


def test_an_error_chunk_becomes_a_warning() -> None:
    """A chunk holding an error is not read as an answer; its message is kept."""
    reader, _ = _read([{"error": {"code": 500, "message": "internal"}}])
    assert any("internal" in w for w in reader.finish(strict=False).warnings)
