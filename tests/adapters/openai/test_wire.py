"""The adapter with the real openai client against the loopback emulator, sync and async.

Every fault kind, slow delivery and a missing key: tests/adapters/test_contract.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from adapters.base import AdapterResult
from adapters.openai.adapter import OpenAIAdapter
from router import errors
from router.emulator import Emulator
from router.errors import ProviderRequestError
from router.logging import grounding_debug
from router.settings import RouterSettings
from router.types import LLMRequest
from support.logs import capture_logs
from support.openai import citation_problems
from support.ports import refusing_base_url, refusing_proxy
from support.wire_faults import fault_timeout_s

SCHEMA = {
    "title": "Capital",
    "type": "object",
    "properties": {
        "capital": {"type": "string"},
        "facts": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["capital", "facts"],
    "additionalProperties": False,
}
Ask = Callable[..., LLMRequest]


def faulty(ask: Ask, kind: str) -> LLMRequest:
    """A grounded request whose last user message carries the emulator's fault directive."""
    return ask(
        f"What is the capital of France? [[emulator:fault={kind}]]",
        grounded=True,
        timeout_s=fault_timeout_s(kind),
    )


def test_wire_request_is_what_responses_create_sends(
    adapter: OpenAIAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """The adapter's prepared-body call puts the same request on the wire as responses.create."""
    from openai import OpenAI

    from adapters.openai.request import build_response_params

    request = ask(grounded=True, grounding_mode="REQUIRED", json_schema=SCHEMA)
    adapter.complete(request, settings)
    client = OpenAI(api_key="sk-test-wire", base_url=emulator.openai_base_url, max_retries=0)
    client.responses.create(**build_response_params(request))
    client.close()
    via_adapter, via_sdk = emulator.requests
    assert via_adapter.path == via_sdk.path == "/v1/responses"
    assert via_adapter.json == via_sdk.json
    assert via_adapter.headers["content-type"] == via_sdk.headers["content-type"]


def test_request_body_for_required_grounding(
    adapter: OpenAIAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """REQUIRED grounding sends web_search with the location and the sources include, and no
    tool_choice unless forcing is switched on (it is post-validated instead)."""
    request = ask(
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is the capital of France?"},
        ],
        grounded=True,
        grounding_mode="REQUIRED",
        user_location={"country": "FR", "city": "Paris"},
        temperature=0.2,
        max_output_tokens=400,
    )
    adapter.complete(request, settings)
    (sent,) = emulator.requests
    assert (sent.method, sent.path) == ("POST", "/v1/responses")
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.json == {
        "model": "gpt-5",
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "What is the capital of France?"}],
        "tools": [
            {
                "type": "web_search",
                "user_location": {"type": "approximate", "country": "FR", "city": "Paris"},
            }
        ],
        "include": ["web_search_call.action.sources"],
        "temperature": 0.2,
        "max_output_tokens": 400,
    }


def test_request_body_for_json_modes(
    adapter: OpenAIAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """A schema is sent as a strict json_schema format; json_mode as json_object saying JSON."""
    adapter.complete(ask(json_schema=SCHEMA), settings)
    adapter.complete(ask(json_mode=True), settings)
    with_schema, json_object = (sent.json for sent in emulator.requests)
    assert with_schema["text"] == {
        "format": {"type": "json_schema", "name": "Capital", "schema": SCHEMA, "strict": True}
    }
    assert "instructions" not in with_schema
    assert json_object["text"] == {"format": {"type": "json_object"}}
    assert json_object["instructions"] == "Reply with a single JSON object."
    assert "tools" not in json_object


def test_grounded_answer(adapter: OpenAIAdapter, settings: RouterSettings, ask: Ask) -> None:
    """A grounded answer: cited spans on the markdown links, then the searched sources."""
    result = adapter.complete(ask(grounded=True), settings)
    assert result.grounded_effective
    assert result.tool_call_count >= 1
    assert result.web_search_queries
    assert result.model_version == "gpt-5"
    assert result.usage.total_tokens == (result.usage.input_tokens or 0) + (
        result.usage.output_tokens or 0
    )
    assert result.citations[0]["cited"]
    for citation in result.citations:
        assert citation_problems(citation, result.content) == []
        assert "utm_" not in (citation["url"] or "")
        for span in citation["spans"]:
            assert span["text"].startswith("([")
    assert result.warnings == []


def test_json_schema_answer(adapter: OpenAIAdapter, settings: RouterSettings, ask: Ask) -> None:
    """A grounded JSON answer parses; the citation tokens are gone from content and values."""
    result = adapter.complete(
        ask(grounded=True, grounding_mode="REQUIRED", json_schema=SCHEMA), settings
    )
    assert set(result.parsed) == {"capital", "facts"}
    assert json.loads(result.content) == result.parsed
    assert not any("\ue200" <= ch <= "\ue202" for ch in result.content)
    assert result.metadata["citation_tokens_removed"] >= 1
    assert result.citations
    assert not result.parsed["capital"].endswith(" ")


def test_json_object_answer(adapter: OpenAIAdapter, settings: RouterSettings, ask: Ask) -> None:
    """json_mode without a schema gives a parsed JSON object."""
    result = adapter.complete(ask(json_mode=True), settings)
    assert isinstance(result.parsed, dict)
    assert result.parsed


def test_sdk_retries_are_off(
    adapter: OpenAIAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """A transient failure reaches the emulator once: the SDK never retries on its own."""
    with pytest.raises(errors.ProviderTransientError):
        adapter.complete(faulty(ask, "503"), settings)
    assert len(emulator.requests) == 1


def test_auth_error_names_the_setting(
    adapter: OpenAIAdapter, settings: RouterSettings, ask: Ask
) -> None:
    """A rejected key says to check OPENAI_API_KEY and carries the provider's message."""
    with pytest.raises(ProviderRequestError) as caught:
        adapter.complete(faulty(ask, "401"), settings)
    assert "check OPENAI_API_KEY" in caught.value.message
    assert caught.value.provider_message
    assert "Incorrect API key" in caught.value.provider_message


def test_clients_are_reused_per_key_and_base_url(
    adapter: OpenAIAdapter, settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Calls with the same settings share one client; another base URL gets its own."""
    other = settings.model_copy(update={"openai_base_url": emulator.openai_base_url + "/"})
    with grounding_debug(True), capture_logs() as events:
        adapter.complete(ask(), settings)
        adapter.complete(ask(), settings)
        adapter.complete(ask(), other)
    created = [e for e in events if e["event"] == "openai_client_created"]
    assert [e["kind"] for e in created] == ["sync", "sync"]
    assert len(emulator.requests) == 3


def test_async_clients_follow_the_event_loop(settings: RouterSettings, ask: Ask) -> None:
    """asyncio.run twice works: each loop gets its own client, closed on that loop."""
    adapter = OpenAIAdapter()

    async def call() -> AdapterResult:
        try:
            return await adapter.acomplete(ask(), settings)
        finally:
            await adapter.aclose()

    with grounding_debug(True), capture_logs() as events:
        first, second = asyncio.run(call()), asyncio.run(call())
    assert first.content == second.content
    assert [e["kind"] for e in events if e["event"] == "openai_client_created"] == [
        "async",
        "async",
    ]
    adapter.close()


def test_close_runs_an_idle_loop_to_close_its_client(settings: RouterSettings, ask: Ask) -> None:
    """close() outside any loop closes async clients on loops that are idle but still open."""
    adapter = OpenAIAdapter()
    loop = asyncio.new_event_loop()
    try:
        result = loop.run_until_complete(adapter.acomplete(ask(), settings))
        adapter.close()
        with grounding_debug(True), capture_logs() as events:
            loop.run_until_complete(adapter.acomplete(ask(), settings))
        assert [e["kind"] for e in events if e["event"] == "openai_client_created"] == ["async"]
        loop.run_until_complete(adapter.aclose())
    finally:
        loop.close()
    assert result.content


def call_once(mode: str, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
    """One call on a fresh adapter (whose clients read the proxy variables when made)."""
    adapter = OpenAIAdapter()
    try:
        if mode == "sync":
            return adapter.complete(request, settings)
        return asyncio.run(adapter.acomplete(request, settings))
    finally:
        adapter.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_refused_connection_is_a_connection_error(
    mode: str, make_settings: Callable[..., RouterSettings], ask: Ask
) -> None:
    """Nothing listening is 'connection', not 'timeout', on either client's transport."""
    with refusing_base_url() as base:
        settings = make_settings(openai_api_key="sk-test", openai_base_url=f"{base}/v1")
        with pytest.raises(errors.ProviderTransientError) as caught:
            call_once(mode, ask(), settings)
    assert caught.value.reason == "connection"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_proxy_variables_are_honoured(
    mode: str, settings: RouterSettings, ask: Ask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HTTP_PROXY routes calls through the proxy (here one that refuses), NO_PROXY bypasses it."""
    with refusing_proxy(monkeypatch):
        with pytest.raises(errors.ProviderTransientError) as caught:
            call_once(mode, ask(), settings)
        assert caught.value.reason == "connection"
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        assert call_once(mode, ask(), settings).content
