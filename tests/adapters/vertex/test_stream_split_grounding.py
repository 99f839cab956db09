"""Grounding metadata split across the chunks of one ``streamGenerateContent``.

The recorded streams carry the whole metadata in their last chunk. Each case here moves the
same metadata apart over the last three chunks (the first chunks and a query, then the other
chunks and the supports, then the rest of the queries and the widget), as the API may send
it: the stream must read exactly as the unsplit one does.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from router import extract
from support.recorded import RECORDED_DIR, load_events

STREAMS = {
    "gemini": [
        RECORDED_DIR / "pydantic-ai" / "gemini25pro_weather_grounding_stream.sse.txt",
        RECORDED_DIR / "mirascope" / "gemini25flash_stream_grounding.sse.txt",
        RECORDED_DIR / "prism" / "gemini_stream_grounding_empty_then_full.sse.txt",
    ],
    "vertex": [RECORDED_DIR / "pydantic-ai" / "vertex_gemini25flash_stream_web_domain.sse.txt"],
}
CASES = [(vendor, path) for vendor, paths in STREAMS.items() for path in paths]


def _sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"data: {json.dumps(event)}\r\n\r\n" for event in events)


def _split(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream with its last chunk's grounding metadata spread over the last three chunks."""
    events = copy.deepcopy(events)
    full = events[-1]["candidates"][0]["groundingMetadata"]
    chunks, supports = full["groundingChunks"], full["groundingSupports"]
    queries = full["webSearchQueries"]
    cut = len(chunks) // 2
    first = {"groundingChunks": chunks[:cut], "webSearchQueries": queries[:1]}
    second = {"groundingChunks": chunks[cut:], "groundingSupports": supports}
    rest = {key: value for key, value in full.items() if key not in first and key not in second}
    rest["webSearchQueries"] = queries[1:]
    for event, metadata in zip(events[-3:], (first, second, rest), strict=True):
        event["candidates"][0]["groundingMetadata"] = metadata
    return events


@pytest.mark.parametrize(("vendor", "path"), CASES, ids=[path.name for _, path in CASES])
def test_a_split_stream_reads_as_the_whole_one(vendor: str, path: Path) -> None:
    """Queries, sources, ranks and every support's span survive the split unchanged."""
    events = load_events(path)
    whole = extract(vendor, _sse(events))
    split = extract(vendor, _sse(_split(events)))
    assert whole.citations
    assert split.content == whole.content
    assert split.web_search_queries == whole.web_search_queries
    assert split.citations == whole.citations
    assert split.metadata["warnings"] == whole.metadata["warnings"] == []


def test_a_support_is_resolved_against_the_accumulated_chunks() -> None:
    """Three chunks, one source each; the supports come last and cite each source in turn."""
    events = load_events(STREAMS["gemini"][0])
    events = copy.deepcopy(events)
    full = events[-1]["candidates"][0]["groundingMetadata"]
    chunks, supports = full["groundingChunks"], full["groundingSupports"]
    metadata = [{"groundingChunks": [chunk]} for chunk in chunks[:2]]
    metadata.append(
        {"groundingChunks": chunks[2:], "groundingSupports": supports, "webSearchQueries": []}
    )
    for event, part in zip(events[-3:], metadata, strict=True):
        event["candidates"][0]["groundingMetadata"] = part
    whole = extract("gemini", _sse(load_events(STREAMS["gemini"][0])))
    split = extract("gemini", _sse(events))
    spans = {c["url"]: c["spans"] for c in whole.citations}
    assert {c["url"]: c["spans"] for c in split.citations} == spans
    assert split.web_search_queries == []


def test_a_support_past_the_chunks_is_said() -> None:
    """A support pointing at a chunk the stream never sent gives a warning that names it."""
    events = _split(load_events(STREAMS["gemini"][0]))
    events[-2]["candidates"][0]["groundingMetadata"]["groundingSupports"][0][
        "groundingChunkIndices"
    ] = [42]
    response = extract("gemini", _sse(events))
    (warning,) = [w for w in response.metadata["warnings"] if "chunk indices" in w]
    assert "[42]" in warning
    assert "5 grounding chunks" in warning
