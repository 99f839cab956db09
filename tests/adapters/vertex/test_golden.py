"""Golden citations of every recorded Gemini/Vertex generateContent body.

The expectation files (tests/data/expected/vertex/<recorded file>.json) were checked row by
row against the bodies and the MANIFEST notes. The other tests here do not read them: they
check spans against the raw bytes, the MANIFEST's counts and properties every body must have.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.vertex.adapter import _extract_vertex_citations
from adapters.vertex.citations import read_vertex_reply
from support.citations import golden_row
from support.recorded import is_normalized, load_final_body
from support.vertex import (
    EXPECTED_DIR,
    GENERATE_CONTENT_FILES,
    INTERACTIONS_FILES,
    citation_problems,
)

IDS = [path.name for path in GENERATE_CONTENT_FILES]
RAW_FILES = [path for path in GENERATE_CONTENT_FILES if not is_normalized(path)]
COUNTS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "vertex_recorded_counts.json").read_text("utf-8")
)


def test_every_generate_content_body_has_an_expectation() -> None:
    """The expected-citation files and the recorded generateContent bodies match one to one."""
    expected = sorted(path.name for path in EXPECTED_DIR.glob("*.json"))
    assert expected == sorted(f"{name}.json" for name in IDS)
    assert len(IDS) == 19


@pytest.mark.parametrize("path", GENERATE_CONTENT_FILES, ids=IDS)
def test_golden_citations(path: Path) -> None:
    """The extracted citations are exactly the checked expectation, row for row."""
    expected = json.loads((EXPECTED_DIR / f"{path.name}.json").read_text("utf-8"))
    citations = _extract_vertex_citations(load_final_body(path))
    assert [golden_row(c, is_normalized(path)) for c in citations] == expected["citations"]


@pytest.mark.parametrize("path", GENERATE_CONTENT_FILES, ids=IDS)
def test_every_citation_satisfies_the_schema(path: Path) -> None:
    """Each citation has the ten keys with valid values; spans lie inside the answer text."""
    reply = read_vertex_reply(load_final_body(path))
    for citation in reply.citations:
        assert citation_problems(citation, reply.content) == []


@pytest.mark.parametrize("path", RAW_FILES, ids=[path.name for path in RAW_FILES])
def test_spans_are_the_byte_ranges_of_the_supports(path: Path) -> None:
    """On raw bodies each span is exactly the UTF-8 byte range its support names."""
    body = load_final_body(path)
    reply = read_vertex_reply(body)
    emitted = {citation["rank"] for citation in reply.citations}
    encoded = reply.content.encode("utf-8")
    expected: set[str] = set()
    for support in body["candidates"][0].get("groundingMetadata", {}).get("groundingSupports", []):
        segment = support["segment"]
        piece = encoded[segment.get("startIndex", 0) : segment["endIndex"]].decode("utf-8")
        assert piece == segment["text"]
        if any(index + 1 in emitted for index in support["groundingChunkIndices"]):
            expected.add(piece)
    spans = {span["text"] for citation in reply.citations for span in citation["spans"]}
    assert spans == expected


@pytest.mark.parametrize("path", GENERATE_CONTENT_FILES, ids=IDS)
def test_no_tracking_parameter_survives(path: Path) -> None:
    """No citation URL keeps a utm_ parameter."""
    for citation in _extract_vertex_citations(load_final_body(path)):
        assert "utm_" not in (citation["url"] or "")


@pytest.mark.parametrize("row", COUNTS, ids=[row["file"] for row in COUNTS])
def test_counts_match_the_manifest(row: dict[str, Any]) -> None:
    """Citations, distinct URLs and dropped chunks per body are what the MANIFEST describes."""
    (path,) = [p for p in GENERATE_CONTENT_FILES if p.name == row["file"]]
    reply = read_vertex_reply(load_final_body(path))
    assert len(reply.citations) == row["citations"]
    assert len({c["url"] for c in reply.citations}) == row["unique_urls"]
    assert reply.grounding.retrieval_chunks_dropped == row["retrieval_chunks_dropped"]
    assert sum(len(c["spans"]) > 0 for c in reply.citations) == row["cited_with_spans"]


@pytest.mark.parametrize("path", GENERATE_CONTENT_FILES, ids=IDS)
def test_ranks_follow_the_chunk_order(path: Path) -> None:
    """Rank is chunk index + 1; a domain-titled redirect chunk is named by its title, and flagged
    as a redirect link whose true domain is known."""
    body = load_final_body(path)
    chunks = body["candidates"][0].get("groundingMetadata", {}).get("groundingChunks", [])
    for citation in _extract_vertex_citations(body):
        web = chunks[citation["rank"] - 1]["web"]
        raw = dict(citation["raw"])
        flags = {key: raw.pop(key) for key in ("redirect", "redirect_only") if key in raw}
        assert raw == chunks[citation["rank"] - 1]
        if "grounding-api-redirect" in web["uri"]:
            assert citation["source_domain"] == web["title"]
            assert flags == {"redirect": True, "redirect_only": False}


@pytest.mark.parametrize("path", INTERACTIONS_FILES, ids=[p.name for p in INTERACTIONS_FILES])
def test_interactions_bodies_are_read_without_error(path: Path) -> None:
    """Gemini Interactions bodies (not generateContent replies) give no citations, no error."""
    body = load_final_body(path)
    assert _extract_vertex_citations(body) == []
    assert read_vertex_reply(body).grounding.warning is None
