"""Grounding evidence, the [CITATIONS] warning, and where citations come from."""

from __future__ import annotations

from typing import Any

from adapters.openai.adapter import _extract_openai_citations, extract_openai_grounding
from router.logging import grounding_debug
from support.logs import capture_logs

QUESTION_TEXT = "Paris is the capital of France. ([a.com](https://a.com/p?utm_source=openai))"


def search_call(action: dict[str, Any], status: str = "completed") -> dict[str, Any]:
    return {"id": "ws_1", "type": "web_search_call", "status": status, "action": action}


def message(text: str, annotations: list[Any], **extra: Any) -> dict[str, Any]:
    part = {"type": "output_text", "text": text, "annotations": annotations}
    return {"type": "message", "role": "assistant", "content": [part], **extra}


def cite(url: str, start: int, end: int, title: str = "A page") -> dict[str, Any]:
    return {
        "type": "url_citation",
        "url": url,
        "title": title,
        "start_index": start,
        "end_index": end,
    }


def test_warning_names_calls_and_the_first_search_call() -> None:
    """Searched but nothing extracted: the exact [CITATIONS] line, first call as compact JSON."""
    first = search_call({"type": "search", "query": "q"})
    body = {"output": [first, search_call({"type": "search", "query": "r"}), message("Hi", [])]}
    grounding = extract_openai_grounding(body)
    assert grounding.warning == (
        "[CITATIONS] OpenAI: 2 tool calls but 0 citations extracted. First web search call: "
        '{"action":{"query":"q","type":"search"},"id":"ws_1","status":"completed",'
        '"type":"web_search_call"}'
    )


def test_warning_quotes_the_search_call_not_the_reasoning_item() -> None:
    """With a reasoning item first (as gpt-5 answers), the warning quotes the search call."""
    body = {
        "output": [
            {"type": "reasoning", "id": "rs_1", "encrypted_content": "x" * 5000},
            search_call({"type": "search", "query": "q"}),
            message("Hi", []),
        ]
    }
    warning = extract_openai_grounding(body).warning
    assert warning is not None
    quoted = warning.split("First web search call: ", 1)[1]
    assert quoted.startswith('{"action":{"query":"q","type":"search"}')
    assert "reasoning" not in warning


def test_warning_item_is_cut_to_a_few_hundred_characters() -> None:
    """A huge search call (a long query) is cut, ending in an ellipsis."""
    body = {"output": [search_call({"type": "search", "query": "q" * 5000})]}
    warning = extract_openai_grounding(body).warning
    assert warning is not None
    item = warning.split("First web search call: ", 1)[1]
    assert len(item) == 300
    assert item.endswith("…")


def test_no_warning_without_tool_calls_or_with_citations() -> None:
    """No search, or a search that yielded a citation, gives no warning."""
    assert extract_openai_grounding({"output": [message("Hi", [])]}).warning is None
    sourced = {
        "output": [
            search_call({"type": "search", "sources": [{"type": "url", "url": "https://a.com"}]})
        ]
    }
    assert extract_openai_grounding(sourced).warning is None


def test_queries_from_query_and_queries_in_order_without_repeats() -> None:
    """query and queries[] are both read, first seen first, blanks and repeats dropped."""
    body = {
        "output": [
            search_call({"type": "search", "query": "a", "queries": ["a", "b", " "]}),
            search_call({"type": "search", "queries": ["c", "b"]}),
            search_call({"type": "open_page", "url": "https://a.com"}),
        ]
    }
    grounding = extract_openai_grounding(body)
    assert grounding.web_search_queries == ("a", "b", "c")
    assert grounding.tool_call_count == 3


def test_failed_calls_count_but_are_no_evidence() -> None:
    """A failed web_search_call is a tool call, not evidence that grounding happened."""
    grounding = extract_openai_grounding(
        {"output": [search_call({"type": "search", "query": "q"}, status="failed")]}
    )
    assert grounding.tool_call_count == 1
    assert grounding.grounded_effective is False


def test_annotations_are_evidence_without_tool_items() -> None:
    """Chat Completions search models cite without tool items: that is grounding too."""
    body = {
        "choices": [
            {
                "message": {
                    "content": "x",
                    "annotations": [
                        {"type": "url_citation", "url_citation": {"url": "https://a.com"}}
                    ],
                }
            }
        ]
    }
    grounding = extract_openai_grounding(body)
    assert (grounding.grounded_effective, grounding.tool_call_count) == (True, 0)


def test_api_sources_are_evidence_not_citations() -> None:
    """oai-weather is named among non-URL sources and is no citation."""
    body = {
        "output": [
            search_call({"type": "search", "sources": [{"type": "api", "name": "oai-weather"}]}),
            message("It is 18 °C.", []),
        ]
    }
    assert _extract_openai_citations(body) == []
    grounding = extract_openai_grounding(body)
    assert grounding.non_url_sources == ("oai-weather",)
    assert grounding.grounded_effective is True


def test_cited_first_in_text_order_then_sources_in_output_order() -> None:
    """Annotations rank by position in the text, whatever order they are listed in."""
    text = "One ([b.com](https://b.com/1)). Two ([a.com](https://a.com/2))."
    b_start, a_start = text.index("([b"), text.index("([a")
    body = {
        "output": [
            search_call(
                {
                    "type": "search",
                    "sources": [
                        {"type": "url", "url": "https://z.com/9"},
                        {"type": "url", "url": "https://a.com/2"},
                    ],
                }
            ),
            search_call({"type": "open_page", "url": "https://y.com/8"}),
            message(
                text,
                [
                    cite("https://a.com/2?utm_source=openai", a_start, text.index(")).") + 2),
                    cite("https://b.com/1", b_start, text.index(")).") - 0),
                ],
            ),
        ]
    }
    citations = _extract_openai_citations(body)
    assert [(c["url"], c["rank"], c["cited"]) for c in citations] == [
        ("https://b.com/1", 1, True),
        ("https://a.com/2", 2, True),
        ("https://z.com/9", 3, False),
        ("https://y.com/8", 4, False),
    ]


def test_results_list_gives_titles_and_snippets() -> None:
    """A results list (on the call or its action) adds uncited sources with title and snippet."""
    body = {
        "output": [
            {
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": "q"},
                "results": [{"url": "https://a.com/x", "title": "A title", "snippet": "Some text"}],
            }
        ]
    }
    (citation,) = _extract_openai_citations(body)
    assert (citation["title"], citation["snippet"], citation["cited"]) == (
        "A title",
        "Some text",
        False,
    )


def test_commentary_messages_are_not_the_answer() -> None:
    """Annotations of a commentary-phase message are sources seen, not citations of the answer."""
    body = {
        "output": [
            message(
                "Looking ([c.com](https://c.com))",
                [cite("https://c.com", 8, 32)],
                phase="commentary",
            ),
            message("Final.", [], phase="final_answer"),
        ]
    }
    (citation,) = _extract_openai_citations(body)
    assert (citation["url"], citation["cited"], citation["spans"]) == ("https://c.com", False, [])


def test_other_annotation_types_are_ignored() -> None:
    """File citations and file paths are not web sources and are not counted as skipped."""
    body = {
        "output": [
            message(
                QUESTION_TEXT,
                [
                    {"type": "file_citation", "file_id": "f", "filename": "a.pdf", "index": 3},
                    cite("https://a.com/p?utm_source=openai", 32, len(QUESTION_TEXT)),
                ],
            )
        ]
    }
    (citation,) = _extract_openai_citations(body)
    assert citation["url"] == "https://a.com/p"
    assert citation["spans"][0]["text"] == "([a.com](https://a.com/p?utm_source=openai))"


def test_malformed_items_are_skipped_and_logged_in_debug() -> None:
    """Bad items are skipped, the good ones kept, and each skip is a debug event."""
    body = {
        "output": [
            "not an item",
            search_call(
                {
                    "type": "search",
                    "sources": [
                        7,
                        {"type": "url", "url": None},
                        {"type": "url", "url": "https://a.com"},
                    ],
                }
            ),
            message("x", [{"type": "url_citation", "url": 5}]),
        ]
    }
    with grounding_debug(True), capture_logs() as events:
        citations = _extract_openai_citations(body)
    assert [c["url"] for c in citations] == ["https://a.com"]
    skipped = [e["item"] for e in events if e["event"] == "openai_item_skipped"]
    assert sorted(skipped) == ["annotation", "output_item", "source", "source"]


def test_nothing_is_logged_without_grounding_debug() -> None:
    """Skipping bad items is silent unless grounding debug is on."""
    with capture_logs() as events:
        _extract_openai_citations({"output": ["bad", {"type": "message", "content": [3]}]})
    assert events == []


def test_unrecognised_values_give_nothing() -> None:
    """Values that are not replies give no citations and no warning, without raising."""
    for value in (None, 3, "text", [], {}, {"output": "x"}, {"choices": [None]}, object()):
        assert _extract_openai_citations(value) == []
        assert extract_openai_grounding(value).warning is None
