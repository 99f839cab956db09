"""The recorded OpenRouter chat completion, read through the "openrouter" row.

OpenRouter's web plugin answered with five nested ``url_citation`` annotations, each with the
page text as ``content``, ``start_index`` = ``end_index`` = 0 and one ``title`` of ``""``
(MANIFEST; provider-quirks section 1). Read by the Chat Completions half of the OpenAI reader
under OpenRouter's name: five cited citations without spans, snippets from the page text, no
title where it was empty, no tracking parameter to strip.
"""

from __future__ import annotations

import pytest

from adapters.base import AdapterResult
from adapters.registry import provider
from router.types import LLMRequest
from support.citations import citation_problems
from support.recorded import RECORDED_DIR, load_final_body

RECORDING = (
    RECORDED_DIR / "pydantic-ai" / "openrouter_chat_completions_url_citation.normalized.json"
)
REQUEST = LLMRequest.model_validate(
    {"vendor": "openrouter", "model": "m", "messages": [{"role": "user", "content": "q"}]}
)


def _result() -> AdapterResult:
    mapper = provider("openrouter").reply_mapper()
    assert mapper is not None
    return mapper(load_final_body(RECORDING), REQUEST)


def test_every_annotation_is_a_cited_citation_without_a_span() -> None:
    """Five annotations, five cited citations in annotation order; offsets 0..0 give no span."""
    body = load_final_body(RECORDING)
    annotations = body["choices"][0]["message"]["annotations"]
    result = _result()
    assert [c["url"] for c in result.citations] == [a["url_citation"]["url"] for a in annotations]
    for citation in result.citations:
        assert citation["provider"] == "openrouter"
        assert citation["cited"] is True
        assert citation["spans"] == []
        assert citation_problems(citation, result.content, provider="openrouter") == []


def test_page_text_is_the_snippet_and_an_empty_title_is_none() -> None:
    """url_citation.content becomes the snippet; the title "" becomes None."""
    result = _result()
    citations = result.citations
    assert [c["title"] for c in citations][:2] == ["AI Agent Framework, the Pydantic way", None]
    assert citations[0]["snippet"].startswith("# pydantic/pydantic-ai")
    assert all(c["snippet"] for c in citations)
    assert citations[0]["location"] == {"type": "url_citation", "start_index": 0, "end_index": 0}


def test_the_plugin_search_and_the_cost_are_read_from_usage() -> None:
    """web_search_requests is the tool call count; usage.cost the reported cost, the part
    beyond the upstream inference cost the search fee."""
    result = _result()
    assert (result.grounded_effective, result.tool_call_count) == (True, 1)
    assert result.warnings == []
    assert result.usage.reported_cost == pytest.approx(0.007637029)
    assert result.usage.reported_search_cost == pytest.approx(0.007637029 - 0.000637029)
