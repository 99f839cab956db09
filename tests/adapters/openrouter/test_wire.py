"""The OpenRouter adapter on the wire: the real ``openai`` client against the emulator.

What the adapter sends (path, key, the web plugin and the user's location, JSON format), what
OpenRouter's replies add (cost, search counts), and a streamed call whose annotations arrive in
the last chunk. Faults, slow delivery and a missing key: tests/adapters/test_contract.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio

from adapters.openrouter.adapter import OpenRouterAdapter
from router.emulator import Emulator
from router.settings import RouterSettings
from router.types import LLMRequest
from support.citations import citation_problems
from support.wire_faults import fault_timeout_s, faulted_prompt

KEY = "sk-or-wire-test-key"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


@pytest.fixture
def settings(emulator: Emulator, make_settings: Callable[..., RouterSettings]) -> RouterSettings:
    emulator.clear_requests()
    return make_settings(
        openrouter_api_key=KEY, openrouter_base_url=emulator.openrouter_base_url, timeout_s=5.0
    )


@pytest.fixture
def adapter() -> Iterator[OpenRouterAdapter]:
    made = OpenRouterAdapter()
    yield made
    made.close()


@pytest_asyncio.fixture
async def async_adapter() -> AsyncIterator[OpenRouterAdapter]:
    made = OpenRouterAdapter()
    yield made
    await made.aclose()
    made.close()


def _request(
    prompt: str = "What is the capital of France?", model: str = "openai/gpt-4o-mini", **fields: Any
) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": "openrouter",
            "model": model,
            "messages": [{"role": "user", "content": prompt}],
            **fields,
        }
    )


def test_grounded_call_on_the_wire(
    adapter: OpenRouterAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """One POST to /api/v1/chat/completions with the key and the web plugin."""
    result = adapter.complete(_request(grounded=True, user_location={"country": "FR"}), settings)
    (sent,) = emulator.requests
    assert (sent.method, sent.path) == ("POST", "/api/v1/chat/completions")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.json["plugins"] == [
        {"id": "web", "user_location": {"type": "approximate", "country": "FR"}}
    ]
    assert result.grounded_effective is True
    assert result.citations
    for citation in result.citations:
        assert citation["cited"] is True
        assert citation_problems(citation, result.content, provider="openrouter") == []


def test_native_search_offsets_become_spans(
    adapter: OpenRouterAdapter, settings: RouterSettings
) -> None:
    """openai/ models searched natively carry real offsets: the citations have spans."""
    result = adapter.complete(_request(grounded=True), settings)
    assert all(citation["spans"] for citation in result.citations)


def test_exa_searched_models_carry_no_offsets(
    adapter: OpenRouterAdapter, settings: RouterSettings
) -> None:
    """Models searched by OpenRouter's engine set offsets to 0: cited, no spans, a snippet."""
    result = adapter.complete(_request(model="deepseek/deepseek-chat", grounded=True), settings)
    assert result.citations
    assert all(c["spans"] == [] and c["cited"] and c["snippet"] for c in result.citations)


def test_an_online_model_needs_no_plugin(
    adapter: OpenRouterAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """A model named with :online searches already: no second web plugin is sent."""
    result = adapter.complete(_request(model="openai/gpt-4o-mini:online", grounded=True), settings)
    (sent,) = emulator.requests
    assert "plugins" not in sent.json
    assert result.grounded_effective is True


def test_domain_filters_go_to_the_web_plugin(
    adapter: OpenRouterAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """allowed_domains are the plugin's include_domains; blocked_domains its exclude_domains."""
    adapter.complete(_request(grounded=True, allowed_domains=["who.int"]), settings)
    adapter.complete(
        _request("Capital of Italy?", grounded=True, blocked_domains=["x.com"]), settings
    )
    allowed, blocked = emulator.requests
    assert allowed.json["plugins"] == [{"id": "web", "include_domains": ["who.int"]}]
    assert blocked.json["plugins"] == [{"id": "web", "exclude_domains": ["x.com"]}]


def test_an_online_model_gets_the_plugin_to_carry_a_domain_filter(
    adapter: OpenRouterAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """:online needs no plugin to search, but a domain filter travels only in one."""
    model = "openai/gpt-4o-mini:online"
    adapter.complete(_request(model=model, grounded=True, blocked_domains=["x.com"]), settings)
    (sent,) = emulator.requests
    assert sent.json["plugins"] == [{"id": "web", "exclude_domains": ["x.com"]}]


def test_an_ungrounded_call_sends_no_plugin(
    adapter: OpenRouterAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """Without grounding: no plugin, no citations, not grounded."""
    result = adapter.complete(_request(max_output_tokens=100), settings)
    (sent,) = emulator.requests
    assert "plugins" not in sent.json
    assert sent.json["max_tokens"] == 100
    assert (result.grounded_effective, result.citations) == (False, [])


def test_grounded_json_is_one_call_with_the_schema(
    adapter: OpenRouterAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """Search and a strict JSON schema in one call."""
    result = adapter.complete(_request(grounded=True, json_schema=SCHEMA), settings)
    (sent,) = emulator.requests
    assert sent.json["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": SCHEMA, "strict": True},
    }
    assert isinstance(result.parsed, dict)
    assert "city" in result.parsed


async def test_grounded_call_async(
    async_adapter: OpenRouterAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """The async client sends the same request and gets the same kind of result."""
    result = await async_adapter.acomplete(_request(grounded=True), settings)
    (sent,) = emulator.requests
    assert sent.path == "/api/v1/chat/completions"
    assert {citation["provider"] for citation in result.citations} == {"openrouter"}


def test_a_stream_sends_the_annotations_last(
    adapter: OpenRouterAdapter, settings: RouterSettings
) -> None:
    """stream=True: content pieces, then the annotations with the finish reason."""
    chunks = list(adapter.stream(_request(grounded=True), settings))
    finishing = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    (last,) = finishing
    assert last["choices"][0]["delta"]["annotations"]


def _faulted(kind: str) -> LLMRequest:
    return _request(faulted_prompt(kind), grounded=True, timeout_s=fault_timeout_s(kind))


def test_a_search_that_cites_nothing_is_grounded_and_warns(
    adapter: OpenRouterAdapter, settings: RouterSettings
) -> None:
    """web_search_requests without annotations: grounded, no citations, the warning."""
    result = adapter.complete(_faulted("no_citations"), settings)
    assert (result.grounded_effective, result.tool_call_count, result.citations) == (True, 1, [])
    assert result.warnings[0].startswith("[CITATIONS] OpenRouter: 1 tool calls")


def test_the_reported_cost_is_kept(adapter: OpenRouterAdapter, settings: RouterSettings) -> None:
    """usage.cost is the reported cost; beyond the upstream inference, the search fee."""
    result = adapter.complete(_request(grounded=True), settings)
    assert result.usage.reported_cost is not None
    assert result.usage.reported_search_cost == pytest.approx(0.02)
