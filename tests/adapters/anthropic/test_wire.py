"""The real ``anthropic`` client against the emulator: what goes on the wire, what comes back.

Request bodies (the web search tool with max_uses, user_location and domain filters, documents
with citations, JSON) and the router's retries over the adapter. Every fault kind, sync and
async, is the contract suite's (tests/adapters/test_contract.py).
"""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest

from adapters.anthropic.adapter import AnthropicAdapter
from adapters.anthropic.request import (
    JSON_OBJECT_INSTRUCTION,
    WEB_SEARCH_TOOL_TYPE,
    build_message_params,
    plan_steps,
)
from router.emulator import Emulator
from router.errors import (
    GroundingRequiredFailedError,
    ProviderTransientError,
    RequestValidationError,
)
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from router.types import LLMRequest
from support.citations import citation_problems
from support.sleeps import RecordedSleeps
from support.wire_faults import fault_timeout_s

from .conftest import KEY, MODEL

Ask = Callable[..., LLMRequest]
SCHEMA = {
    "title": "Capital",
    "type": "object",
    "properties": {"capital": {"type": "string"}},
    "required": ["capital"],
    "additionalProperties": False,
}
PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF").decode()


def test_wire_request_is_what_messages_create_sends(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """The adapter's prepared-body post puts the same request on the wire as messages.create."""
    from anthropic import Anthropic

    request = ask(grounded=True, user_location={"country": "FR"}, blocked_domains=["x.com"])
    adapter.complete(request, settings)
    client = Anthropic(api_key=KEY, base_url=emulator.anthropic_base_url, max_retries=0)
    (step,) = plan_steps(request)
    client.messages.create(**build_message_params(request, step, max_uses=5))
    client.close()
    via_adapter, via_sdk = emulator.requests
    assert via_adapter.path == via_sdk.path == "/v1/messages"
    assert via_adapter.json == via_sdk.json
    for header in ("authorization", "anthropic-version", "content-type"):
        assert via_adapter.headers[header] == via_sdk.headers[header]


def test_request_body_for_grounding(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Grounding sends the newest web search tool with max_uses, the location and the filter."""
    request = ask(
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is the capital of France?"},
        ],
        grounded=True,
        grounding_mode="REQUIRED",
        user_location={"country": "FR", "city": "Paris", "timezone": "Europe/Paris"},
        allowed_domains=["Wikipedia.org", "britannica.com"],
        max_output_tokens=400,
    )
    adapter.complete(request, settings)
    (sent,) = emulator.requests
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json == {
        "model": MODEL,
        "max_tokens": 400,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "What is the capital of France?"}],
        "tools": [
            {
                "type": WEB_SEARCH_TOOL_TYPE,
                "name": "web_search",
                "max_uses": 5,
                "user_location": {
                    "type": "approximate",
                    "city": "Paris",
                    "country": "FR",
                    "timezone": "Europe/Paris",
                },
                "allowed_domains": ["wikipedia.org", "britannica.com"],
            }
        ],
    }


def test_blocked_domains_go_to_the_tool(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """blocked_domains is the tool's blocked_domains; max_uses follows the setting."""
    fewer = settings.model_copy(update={"anthropic_max_searches": 2})
    adapter.complete(ask(grounded=True, blocked_domains=["pinterest.com"]), fewer)
    (tool,) = emulator.requests[0].json["tools"]
    assert tool["blocked_domains"] == ["pinterest.com"]
    assert tool["max_uses"] == 2
    assert "allowed_domains" not in tool


def test_both_filters_are_refused_before_any_call(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """The API takes one filter at a time: both at once is a request error, nothing sent."""
    request = ask(grounded=True, allowed_domains=["a.com"], blocked_domains=["b.com"])
    with pytest.raises(RequestValidationError, match="not both"):
        adapter.complete(request, settings)
    assert emulator.requests == []


def test_documents_are_sent_with_citations(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Text, PDF and chunked documents become document blocks with citations enabled."""
    parts = [
        {"type": "text", "text": "Summarise these."},
        {"type": "document", "title": "Memo", "source": "Sales grew 4%.", "context": "internal"},
        {"type": "document", "source": {"type": "base64", "data": PDF}},
        {"type": "document", "title": "Notes", "source": ["First chunk.", "Second chunk."]},
    ]
    adapter.complete(ask(messages=[{"role": "user", "content": parts}]), settings)
    (content,) = [m["content"] for m in emulator.requests[0].json["messages"]]
    assert content == [
        {"type": "text", "text": "Summarise these."},
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "Sales grew 4%."},
            "citations": {"enabled": True},
            "title": "Memo",
            "context": "internal",
        },
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
            "citations": {"enabled": True},
        },
        {
            "type": "document",
            "source": {
                "type": "content",
                "content": [
                    {"type": "text", "text": "First chunk."},
                    {"type": "text", "text": "Second chunk."},
                ],
            },
            "citations": {"enabled": True},
            "title": "Notes",
        },
    ]


def test_document_citations_come_back_located(
    adapter: AnthropicAdapter, settings: RouterSettings, ask: Ask
) -> None:
    """Each document is cited with its own location type, no URL, a document: label."""
    parts = [
        {"type": "text", "text": "What do they say?"},
        {"type": "document", "title": "Q3 memo", "source": "Sales grew 4%. Costs fell."},
        {"type": "document", "source": {"type": "base64", "data": PDF}},
        {"type": "document", "source": ["First chunk.", "Second chunk."]},
    ]
    result = adapter.complete(ask(messages=[{"role": "user", "content": parts}]), settings)
    by_domain = {c["source_domain"]: c for c in result.citations}
    assert set(by_domain) == {"document:Q3-memo", "document:2", "document:3"}
    memo = by_domain["document:Q3-memo"]
    assert (memo["url"], memo["source_type"], memo["cited"]) == (None, "doc", True)
    assert memo["cited_text"] == "Sales grew 4%."
    assert memo["location"] == {
        "type": "char_location",
        "document_index": 0,
        "document_title": "Q3 memo",
        "start_char_index": 0,
        "end_char_index": 14,
    }
    assert by_domain["document:2"]["location"]["type"] == "page_location"
    assert by_domain["document:3"]["location"] == {
        "type": "content_block_location",
        "document_index": 2,
        "document_title": None,
        "start_block_index": 0,
        "end_block_index": 1,
    }
    for citation in result.citations:
        assert citation_problems(citation, result.content, provider="anthropic") == []
    assert result.grounded_effective is False


def test_grounded_answer(adapter: AnthropicAdapter, settings: RouterSettings, ask: Ask) -> None:
    """A grounded answer: searches and queries, cited blocks first, then the other results."""
    result = adapter.complete(ask(grounded=True), settings)
    assert result.grounded_effective
    assert result.tool_call_count == len(result.web_search_queries) >= 1
    assert result.model_version == MODEL
    assert result.citations[0]["cited"]
    assert result.citations[0]["location"]["type"] == "search_result"
    for citation in result.citations:
        assert citation_problems(citation, result.content, provider="anthropic") == []
    assert result.warnings == []
    assert result.usage.total_tokens == (result.usage.input_tokens or 0) + (
        result.usage.output_tokens or 0
    )


def test_json_schema_without_grounding_uses_output_config(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Without citations a schema goes to output_config.format, in one call."""
    result = adapter.complete(ask(json_schema=SCHEMA), settings)
    (sent,) = emulator.requests
    assert sent.json["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert set(result.parsed) == {"capital"}
    assert result.metadata["two_step"] is False


def test_json_mode_asks_in_words_and_unfences(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """json_mode without a schema asks in the system prompt; the fenced answer is parsed."""
    result = adapter.complete(ask(json_mode=True), settings)
    assert emulator.requests[0].json["system"] == JSON_OBJECT_INSTRUCTION
    assert isinstance(result.parsed, dict)
    assert not result.content.startswith("```")


def test_grounded_json_takes_two_steps(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Citations and structured output do not mix: search in prose, then reshape without tools."""
    result = adapter.complete(ask(grounded=True, json_schema=SCHEMA), settings)
    first, second = (sent.json for sent in emulator.requests)
    assert "tools" in first
    assert "output_config" not in first
    assert "tools" not in second
    assert second["output_config"]["format"]["schema"] == SCHEMA
    assert second["messages"][-2] == {
        "role": "assistant",
        "content": result.metadata["step1"]["content"],
    }
    assert result.metadata["two_step"] is True
    assert set(result.parsed) == {"capital"}
    step1_text = result.metadata["step1"]["content"]
    assert result.citations
    for citation in result.citations:
        assert citation_problems(citation, step1_text, provider="anthropic") == []


def test_required_two_step_skips_the_reshape_when_step_one_did_not_search(
    adapter: AnthropicAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """REQUIRED grounding that failed in step 1 is not reshaped: one call, step 1's prose."""
    request = ask(
        "What is the capital of France? [[emulator:fault=no_search]]",
        grounded=True,
        grounding_mode="REQUIRED",
        json_schema=SCHEMA,
    )
    result = adapter.complete(request, settings)
    assert len(emulator.requests) == 1
    assert result.metadata["step2_skipped"]
    assert result.grounded_effective is False


def _faulty(ask: Ask, kind: str) -> LLMRequest:
    question = f"What is the capital of France? [[emulator:fault={kind}]]"
    return ask(question, grounded=True, timeout_s=fault_timeout_s(kind))


def test_router_retries_overloaded_then_answers(
    settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Two 529s with Retry-After 2 s, then an answer: three calls, the waits honoured."""
    sleeps = RecordedSleeps()
    with UnifiedLLMAdapter(settings, sleep=sleeps, async_sleep=sleeps.asleep) as router:
        response = router.route(_faulty(ask, "529:2*2"))
    assert response.attempts == 3
    assert len(emulator.requests) == 3
    assert sleeps.waits == [2.0, 2.0]


def test_router_gives_up_after_max_attempts_of_429(
    settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Rate limited on every attempt: the transient error after max_attempts calls."""
    sleeps = RecordedSleeps()
    with (
        UnifiedLLMAdapter(settings, sleep=sleeps, async_sleep=sleeps.asleep) as router,
        pytest.raises(ProviderTransientError) as raised,
    ):
        router.route(_faulty(ask, "429:1"))
    assert raised.value.reason == "rate_limited"
    assert raised.value.attempts == settings.max_attempts == len(emulator.requests)
    assert sleeps.waits == [1.0] * (settings.max_attempts - 1)


def test_router_rejects_required_without_a_search(settings: RouterSettings, ask: Ask) -> None:
    """REQUIRED grounding: an answer without a web search call is not_invoked."""
    with (
        UnifiedLLMAdapter(settings) as router,
        pytest.raises(GroundingRequiredFailedError) as raised,
    ):
        router.route(_faulty(ask, "no_search").model_copy(update={"grounding_mode": "REQUIRED"}))
    assert raised.value.reason == "not_invoked"


def test_router_rejects_required_without_a_citation(settings: RouterSettings, ask: Ask) -> None:
    """REQUIRED grounding: searches that found and cited nothing are no_citations."""
    with (
        UnifiedLLMAdapter(settings) as router,
        pytest.raises(GroundingRequiredFailedError) as raised,
    ):
        router.route(_faulty(ask, "no_citations").model_copy(update={"grounding_mode": "REQUIRED"}))
    assert raised.value.reason == "no_citations"
