"""The Perplexity adapter on the wire: the real ``openai`` client against the emulator's Sonar.

What the adapter sends (path, key, search options, JSON format), reasoning models and a
streamed call. Faults, slow delivery and a missing key: tests/adapters/test_contract.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio

from adapters.perplexity.adapter import PerplexityAdapter
from router.emulator import Emulator
from router.errors import (
    ProviderRequestError,
)
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from router.streaming.events import Completed, TextDelta
from router.types import LLMRequest
from support.citations import citation_problems
from support.wire_faults import fault_timeout_s, faulted_prompt

KEY = "pplx-wire-test-key"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture
def settings(emulator: Emulator, make_settings: Callable[..., RouterSettings]) -> RouterSettings:
    emulator.clear_requests()
    return make_settings(
        perplexity_api_key=KEY, perplexity_base_url=emulator.perplexity_base_url, timeout_s=5.0
    )


@pytest.fixture
def adapter() -> Iterator[PerplexityAdapter]:
    made = PerplexityAdapter()
    yield made
    made.close()


@pytest_asyncio.fixture
async def async_adapter() -> AsyncIterator[PerplexityAdapter]:
    made = PerplexityAdapter()
    yield made
    await made.aclose()
    made.close()


def _request(
    prompt: str = "What is the capital of France?", model: str = "sonar", **fields: Any
) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": "perplexity",
            "model": model,
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": prompt},
            ],
            **fields,
        }
    )


def test_grounded_call_on_the_wire(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """One POST to /chat/completions with the key, the messages and the user's location."""
    request = _request(
        grounded=True, user_location={"country": "FR", "city": "Paris", "timezone": "Europe/Paris"}
    )
    result = adapter.complete(request, settings)
    (sent,) = emulator.requests
    assert (sent.method, sent.path) == ("POST", "/chat/completions")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json == {
        "model": "sonar",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is the capital of France?"},
        ],
        "web_search_options": {"user_location": {"country": "FR", "city": "Paris"}},
    }
    assert result.grounded_effective is True
    assert any(citation["cited"] for citation in result.citations)
    for citation in result.citations:
        assert citation_problems(citation, result.content, provider="perplexity") == []
    assert result.usage.reported_cost is not None
    assert result.metadata["num_search_queries"] >= 1


def test_an_ungrounded_call_turns_the_search_off(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """grounded=False sends disable_search: the reply has no sources and is not grounded."""
    result = adapter.complete(_request(max_output_tokens=200, temperature=0.2), settings)
    (sent,) = emulator.requests
    assert sent.json["disable_search"] is True
    assert (sent.json["max_tokens"], sent.json["temperature"]) == (200, 0.2)
    assert (result.grounded_effective, result.citations) == (False, [])


def test_grounded_json_is_one_call_with_the_schema(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """Search and a JSON schema combine in one call; the sources still come back."""
    result = adapter.complete(_request(grounded=True, json_schema=SCHEMA), settings)
    (sent,) = emulator.requests
    assert sent.json["response_format"] == {
        "type": "json_schema",
        "json_schema": {"schema": SCHEMA},
    }
    assert isinstance(result.parsed, dict)
    assert "city" in result.parsed
    assert result.grounded_effective is True
    assert result.citations


def test_json_mode_without_a_schema_asks_for_any_object(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """json_mode alone sends a schema for any object (Sonar has no schema-less JSON mode)."""
    result = adapter.complete(_request(json_mode=True), settings)
    (sent,) = emulator.requests
    assert sent.json["response_format"]["json_schema"] == {"schema": {"type": "object"}}
    assert isinstance(result.parsed, dict)


async def test_grounded_call_async(
    async_adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """The async client sends the same request and gets the same kind of result."""
    result = await async_adapter.acomplete(_request(grounded=True), settings)
    (sent,) = emulator.requests
    assert sent.path == "/chat/completions"
    assert {citation["provider"] for citation in result.citations} == {"perplexity"}


def test_a_stream_yields_chunks_that_repeat_the_sources(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """stream=True: chunks of content, each with the full citations list."""
    chunks = list(adapter.stream(_request(grounded=True), settings))
    (sent,) = emulator.requests
    assert sent.json["stream"] is True
    assert len(chunks) > 2
    assert all(chunk["citations"] == chunks[0]["citations"] for chunk in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_allowed_domains_go_as_the_domain_filter(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """allowed_domains are search_domain_filter as they are."""
    adapter.complete(_request(grounded=True, allowed_domains=["who.int", "europa.eu"]), settings)
    (sent,) = emulator.requests
    assert sent.json["search_domain_filter"] == ["who.int", "europa.eu"]


def test_blocked_domains_go_as_the_domain_filter_with_a_minus(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """blocked_domains are search_domain_filter entries prefixed with '-'."""
    adapter.complete(_request(grounded=True, blocked_domains=["pinterest.com"]), settings)
    (sent,) = emulator.requests
    assert sent.json["search_domain_filter"] == ["-pinterest.com"]


def test_the_emulator_refuses_a_mixed_domain_filter_as_sonar_does(
    adapter: PerplexityAdapter, settings: RouterSettings
) -> None:
    """Allowed and blocked in one list is an HTTP 400 (the router refuses it before any call)."""
    request = _request(grounded=True, allowed_domains=["who.int"], blocked_domains=["x.com"])
    with pytest.raises(ProviderRequestError) as raised:
        adapter.complete(request, settings)
    assert raised.value.reason == "bad_request"
    assert "mix" in str(raised.value)


def test_search_context_size_and_recency_go_to_their_fields(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """search_context_size is web_search_options', search_recency search_recency_filter."""
    request = _request(
        grounded=True,
        user_location={"country": "FR"},
        search_context_size="high",
        search_recency="week",
    )
    result = adapter.complete(request, settings)
    (sent,) = emulator.requests
    assert sent.json["web_search_options"] == {
        "search_context_size": "high",
        "user_location": {"country": "FR"},
    }
    assert sent.json["search_recency_filter"] == "week"
    assert result.metadata["search_context_size"] == "high"


def test_an_ungrounded_call_sends_no_search_filters(
    adapter: PerplexityAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """Without grounding the search is off, and its filters are not sent."""
    adapter.complete(
        _request(allowed_domains=["who.int"], search_recency="day", search_context_size="low"),
        settings,
    )
    (sent,) = emulator.requests
    assert sent.json["disable_search"] is True
    assert not {"search_domain_filter", "search_recency_filter", "web_search_options"} & set(
        sent.json
    )


def test_a_reasoning_models_think_block_is_not_the_answer(
    adapter: PerplexityAdapter, settings: RouterSettings
) -> None:
    """sonar-reasoning: the <think> block leaves the answer for metadata; spans still match."""
    result = adapter.complete(_request(grounded=True, model="sonar-reasoning-pro"), settings)
    assert "<think>" not in result.content
    assert not result.content.startswith((" ", "\n"))
    assert result.metadata["reasoning"].startswith("The user asks")
    assert any(citation["cited"] for citation in result.citations)
    for citation in result.citations:
        assert citation_problems(citation, result.content, provider="perplexity") == []


def test_a_reasoning_models_stream_shows_only_the_answer(
    settings: RouterSettings, emulator: Emulator
) -> None:
    """Streamed, the think block is held back: the text deltas add up to the final answer."""
    request = {
        "vendor": "perplexity",
        "model": "sonar-reasoning",
        "messages": [{"role": "user", "content": "What is the capital of France?"}],
        "grounded": True,
    }
    with UnifiedLLMAdapter(settings) as router:
        events = list(router.stream(request))
    text = "".join(event.text for event in events if isinstance(event, TextDelta))
    (done,) = [event for event in events if isinstance(event, Completed)]
    assert text == done.response.content
    assert "<think>" not in text
    assert done.response.metadata["reasoning"]


def _faulted(kind: str) -> LLMRequest:
    return _request(faulted_prompt(kind), grounded=True, timeout_s=fault_timeout_s(kind))


def test_auth_error_names_the_key_setting(
    adapter: PerplexityAdapter, settings: RouterSettings
) -> None:
    """The HTML 401 page is an auth error that names PERPLEXITY_API_KEY, without tags."""
    with pytest.raises(ProviderRequestError) as raised:
        adapter.complete(_faulted("401"), settings)
    assert "PERPLEXITY_API_KEY" in str(raised.value)
    assert "<" not in (raised.value.provider_message or "")
