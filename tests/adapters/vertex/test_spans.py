"""Gemini's UTF-8 byte segments as character spans (rows of tests/data/vertex_spans.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.vertex.citations import extract_vertex_citations
from adapters.vertex.spans import candidate_layout, segment_span

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "vertex_spans.json").read_text("utf-8")
)


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_segment_span(row: dict[str, Any]) -> None:
    """The segment covers the characters the row expects (None: no span)."""
    layout = candidate_layout({"content": {"parts": row["parts"]}})
    span = segment_span(layout, row["segment"])
    found = None if span is None else [span["start"], span["end"], span["text"]]
    assert found == row["expected"]


@pytest.mark.parametrize(
    "row",
    [row for row in ROWS if row["expected"] is not None],
    ids=[row["id"] for row in ROWS if row["expected"] is not None],
)
def test_span_text_is_the_content_it_points_at(row: dict[str, Any]) -> None:
    """Every span's text is content[start:end] of the answer."""
    layout = candidate_layout({"content": {"parts": row["parts"]}})
    span = segment_span(layout, row["segment"])
    assert span is not None
    assert layout.content[span["start"] : span["end"]] == span["text"]


def test_answer_text_skips_thoughts_and_non_text_parts() -> None:
    """The answer is the text parts in order, without thought parts or tool parts."""
    parts = [
        {"text": "thinking", "thought": True},
        {"toolCall": {"id": "1"}},
        {"text": "Hello "},
        {"text": 7},
        {"text": "world"},
    ]
    assert candidate_layout({"content": {"parts": parts}}).content == "Hello world"


def test_chunks_cited_by_one_support_own_their_spans() -> None:
    """A support citing two chunks gives each citation a span dict of its own."""
    body = {
        "candidates": [
            {
                "content": {"parts": [{"text": "Paris is sunny."}]},
                "groundingMetadata": {
                    "groundingChunks": [
                        {"web": {"uri": "https://a.example.com/x", "title": "A"}},
                        {"web": {"uri": "https://b.example.org/y", "title": "B"}},
                    ],
                    "groundingSupports": [
                        {"segment": {"endIndex": 15}, "groundingChunkIndices": [0, 1]}
                    ],
                },
            }
        ]
    }
    first, second = extract_vertex_citations(body)
    assert first["spans"] == second["spans"] == [{"start": 0, "end": 15, "text": "Paris is sunny."}]
    first["spans"][0]["text"] = "changed"
    assert second["spans"][0]["text"] == "Paris is sunny."
