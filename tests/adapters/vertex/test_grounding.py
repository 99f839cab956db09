"""Grounding evidence beside the citations: queries, tool calls, Search Suggestions, warning."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.vertex.adapter import VertexGrounding, extract_vertex_grounding
from support.recorded import load_final_body, recorded_files


def _body(path_pattern: str) -> dict[str, Any]:
    (path,) = recorded_files(path_pattern)
    return load_final_body(path)


def _reply(grounding: dict[str, Any] | None, parts: list[Any] | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts or [{"text": "An answer."}]}}
    if grounding is not None:
        candidate["groundingMetadata"] = grounding
    return {"candidates": [candidate]}


def test_search_grounding_is_effective() -> None:
    """A Vertex reply with queries and chunks: effective, one tool call, its queries and widget."""
    grounding = extract_vertex_grounding(_body("ruby_llm/vertex_gemini25flash_ruby_version_*.json"))
    assert grounding.grounded_effective is True
    assert grounding.tool_call_count == 1
    assert grounding.web_search_queries == ("latest stable version of Ruby", "Ruby release notes")
    assert grounding.search_entry_point is not None
    assert grounding.search_entry_point.startswith("<style>")
    evidence = ("webSearchQueries", "groundingChunks", "searchEntryPoint")
    assert grounding.tool_call_evidence == evidence
    assert grounding.warning is None


def test_empty_grounding_metadata_is_not_effective() -> None:
    """``groundingMetadata: {}`` means no search ran: not effective, no tool call, no warning."""
    grounding = extract_vertex_grounding(
        _body("pydantic-ai/gemini25flash_empty_grounding_metadata.normalized.json")
    )
    assert grounding == VertexGrounding()


def test_url_context_chunks_are_effective_without_queries() -> None:
    """url_context grounding has chunks but no queries: effective all the same."""
    grounding = extract_vertex_grounding(
        _body("pydantic-ai/gemini25flash_url_context_grounding.normalized.json")
    )
    assert (grounding.grounded_effective, grounding.web_search_queries) == (True, ())


def test_server_side_tool_calls_are_counted() -> None:
    """toolCall parts (server-side tool invocations) count one each; empty queries are dropped."""
    grounding = extract_vertex_grounding(
        _body("pydantic-ai/gemini3flash_grounding_title_missing.normalized.json")
    )
    assert grounding.tool_call_count == 1
    assert grounding.tool_call_evidence[0] == "toolCall"
    assert grounding.web_search_queries == ("largest city in Mexico by population",)


def test_warning_when_search_ran_but_nothing_is_cited() -> None:
    """Queries without any source give the [CITATIONS] warning in DESIGN.md's exact form."""
    reply = _reply({"webSearchQueries": ["q"], "searchEntryPoint": {"renderedContent": "<div/>"}})
    grounding = extract_vertex_grounding(reply)
    assert grounding.warning == (
        "[CITATIONS] Vertex: 1 tool calls but 0 citations extracted. "
        "Grounding metadata keys found: ['searchEntryPoint', 'webSearchQueries']"
    )
    assert grounding.grounded_effective is True


def test_file_search_chunks_without_domain_warn() -> None:
    """Retrieval ran (chunks present) but no chunk had a domain: effective, and a warning."""
    grounding = extract_vertex_grounding(
        _body("pydantic-ai/gemini25pro_file_search_retrieved_context.json")
    )
    assert grounding.grounded_effective is True
    assert grounding.retrieval_chunks_dropped == 2
    assert grounding.warning is not None
    assert grounding.warning.startswith("[CITATIONS] Vertex: 1 tool calls but 0 citations")


@pytest.mark.parametrize(
    ("grounding", "effective"),
    [
        ({"webSearchQueries": ["weather"]}, True),
        ({"groundingChunks": [{"web": {"uri": "https://a.example"}}]}, True),
        ({"webSearchQueries": ["", "  "]}, False),
        ({"searchEntryPoint": {"renderedContent": "<div/>"}}, False),
        ({"retrievalMetadata": {}}, False),
        (None, False),
    ],
    ids=["queries", "chunks", "blank_queries", "widget_only", "retrieval_metadata", "none"],
)
def test_grounded_effective_means_queries_or_chunks(
    grounding: dict[str, Any] | None, effective: bool
) -> None:
    """grounded_effective is true exactly when search queries or grounding chunks are present."""
    assert extract_vertex_grounding(_reply(grounding)).grounded_effective is effective


def test_queries_of_all_candidates_are_merged() -> None:
    """Queries come from every candidate, once each, in order."""
    body = {
        "candidates": [
            {"groundingMetadata": {"webSearchQueries": ["a", "b"]}},
            {"groundingMetadata": {"webSearchQueries": ["b", "c"]}},
        ]
    }
    assert extract_vertex_grounding(body).web_search_queries == ("a", "b", "c")
