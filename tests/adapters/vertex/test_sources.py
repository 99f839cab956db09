"""Where Vertex citations come from, from the rows of tests/data/vertex_sources.json.

Each row is a reply (its candidates), the citations expected from it and why: the ten metadata
sources, chunk kinds, supports and spans, redirects, merging, resolved redirects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.vertex.adapter import _extract_vertex_citations
from adapters.vertex.citations import read_vertex_reply
from support.vertex import citation_problems

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "vertex_sources.json").read_text("utf-8")
)


def _summary(citation: Any) -> dict[str, Any]:
    return {
        "url": citation["url"],
        "source_domain": citation["source_domain"],
        "title": citation["title"],
        "rank": citation["rank"],
        "cited": citation["cited"],
        "spans": [[span["start"], span["end"], span["text"]] for span in citation["spans"]],
        "source_type": citation["source_type"],
        "redirect": bool(citation["raw"].get("redirect")),
        "snippet": citation["snippet"],
    }


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_citations_from_each_source(row: dict[str, Any]) -> None:
    """The reply gives exactly the citations the row expects (the row's why says which rule)."""
    body = {"candidates": row["candidates"]}
    citations = _extract_vertex_citations(body, row.get("resolved"))
    assert [_summary(citation) for citation in citations] == row["expected"]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_citations_from_each_source_satisfy_the_schema(row: dict[str, Any]) -> None:
    """Every citation of every row is schema-valid against the first candidate's text."""
    reply = read_vertex_reply({"candidates": row["candidates"]}, row.get("resolved"))
    for citation in reply.citations:
        assert citation_problems(citation, reply.content) == []


def test_sources_are_read_in_the_documented_order() -> None:
    """Unranked sources keep the order of the ten places: citations before webSearchSources."""
    grounding = {
        "webSearchSources": [{"url": "https://eighth.example"}],
        "sources": [{"url": "https://fifth.example"}],
        "citations": [{"uri": "https://first.example"}],
        "citedSources": [{"uri": "https://second.example"}],
    }
    body = {"candidates": [{"content": {"parts": [{"text": "x"}]}, "groundingMetadata": grounding}]}
    urls = [citation["url"] for citation in _extract_vertex_citations(body)]
    assert urls == [
        "https://first.example",
        "https://second.example",
        "https://fifth.example",
        "https://eighth.example",
    ]


def test_dropped_retrieval_chunks_are_counted() -> None:
    """retrievedContext chunks with no domain are counted as seen and dropped."""
    row = next(row for row in ROWS if row["id"] == "retrieved_context_without_url_dropped")
    grounding = read_vertex_reply({"candidates": row["candidates"]}).grounding
    assert (grounding.retrieval_chunks, grounding.retrieval_chunks_dropped) == (2, 2)
    assert (grounding.sources_seen, grounding.sources_dropped) == (2, 2)


def test_raw_is_a_copy() -> None:
    """Changing a citation's raw leaves the reply it came from untouched."""
    chunk = {"web": {"uri": "https://example.com/a", "title": "A"}}
    grounding = {"groundingChunks": [chunk]}
    body = {"candidates": [{"content": {"parts": []}, "groundingMetadata": grounding}]}
    (citation,) = _extract_vertex_citations(body)
    citation["raw"]["web"]["uri"] = "changed"
    assert chunk["web"]["uri"] == "https://example.com/a"
