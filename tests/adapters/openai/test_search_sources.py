"""Sources only seen in a search: a title from their text, and the search call beside them."""

from __future__ import annotations

from typing import Any

from adapters.openai.adapter import _extract_openai_citations


def _reply(results: list[dict[str, Any]], sources: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_0a1b",
                "status": "completed",
                "action": {"type": "search", "query": "ruby 3.4", "sources": sources},
                "results": results,
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Ruby 3.4 is out.", "annotations": []}],
            },
        ]
    }


def test_result_without_a_title_takes_the_first_line_of_its_text() -> None:
    """A search result with text but no title is named by the text's first line."""
    result = {
        "url": "https://www.ruby-lang.org/en/news/2024/12/25/ruby-3-4-0-released/",
        "text": "Ruby 3.4.0 Released\nWe are pleased to announce the release of Ruby 3.4.0.",
    }
    (citation,) = _extract_openai_citations(_reply([result], []))
    assert citation["title"] == "Ruby 3.4.0 Released"
    assert citation["snippet"] is not None
    assert citation["snippet"].startswith("Ruby 3.4.0 Released We are pleased")


def test_result_text_that_starts_with_a_sentence_gives_no_title() -> None:
    """A text whose first line is a sentence, or that is one line, names no title."""
    results = [
        {"url": "https://a.example.com/1", "text": "Ruby 3.4 was released today.\nMore below."},
        {"url": "https://b.example.com/2", "text": "Ruby 3.4.0 Released"},
    ]
    citations = _extract_openai_citations(_reply(results, []))
    assert [citation["title"] for citation in citations] == [None, None]


def test_structured_title_wins_over_the_text() -> None:
    """A result's own title is kept; the text's first line is only a fallback."""
    result = {"url": "https://a.example.com/1", "title": "Release notes", "text": "Other\nText"}
    (citation,) = _extract_openai_citations(_reply([result], []))
    assert citation["title"] == "Release notes"


def test_search_only_source_keeps_the_search_call_beside_it() -> None:
    """raw of a source seen only in a search holds the entry and the call's type and id."""
    sources = [{"type": "url", "url": "https://www.ruby-lang.org/en/downloads/"}]
    results = [{"url": "https://b.example.com/2", "title": "B", "text": "x"}]
    citations = _extract_openai_citations(_reply(results, sources))
    call = {"type": "web_search_call", "id": "ws_0a1b"}
    assert [citation["raw"] for citation in citations] == [
        {"type": "url", "url": "https://www.ruby-lang.org/en/downloads/", "tool_call": call},
        {"url": "https://b.example.com/2", "title": "B", "text": "x", "tool_call": call},
    ]
