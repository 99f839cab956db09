"""The Vertex adapter on the wire: the real google-genai client against the loopback emulator.

What the adapter sends (path, tools, JSON settings, system instruction), the two-step reshape
end to end, transports and redaction, and the router's retry layer on top. Faults and slow
delivery, sync and async: tests/adapters/test_contract.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio
from pydantic import SecretStr

from adapters.base import AdapterResult
from adapters.vertex.adapter import VertexAdapter
from adapters.vertex.adapter import _call_for as call_for
from adapters.vertex.request import plan_steps
from router.emulator import Emulator
from router.errors import (
    GroundingRequiredFailedError,
    ProviderRequestError,
    ProviderTransientError,
)
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from router.types import LLMRequest
from support.ports import refusing_base_url, refusing_proxy
from support.vertex import citation_problems
from support.wire_faults import fault_timeout_s, faulted_prompt

MODEL = "gemini-2.5-flash"
PATH = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{MODEL}"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "summary": {"type": "string"}},
    "required": ["city", "summary"],
}


@pytest.fixture
def settings(emulator: Emulator, make_settings: Callable[..., RouterSettings]) -> RouterSettings:
    emulator.clear_requests()
    return make_settings(
        google_cloud_project="p",
        google_cloud_location="us-central1",
        vertex_base_url=emulator.vertex_base_url,
        vertex_access_token="test-token",
        timeout_s=5.0,
    )


@pytest.fixture
def adapter() -> Iterator[VertexAdapter]:
    made = VertexAdapter()
    yield made
    made.close()


@pytest_asyncio.fixture
async def async_adapter() -> AsyncIterator[VertexAdapter]:
    made = VertexAdapter()
    yield made
    await made.aclose()
    made.close()


def _request(prompt: str = "What is the weather in Berlin today?", **fields: Any) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": "vertex",
            "model": MODEL,
            "messages": [
                {"role": "system", "content": "Answer in two sentences."},
                {"role": "user", "content": prompt},
            ],
            **fields,
        }
    )


def test_grounded_call_on_the_wire(
    adapter: VertexAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """One POST to generateContent with the googleSearch tool, no JSON, the location sentence."""
    result = adapter.complete(_request(grounded=True, user_location={"city": "Berlin"}), settings)
    (sent,) = emulator.requests
    assert (sent.method, sent.path) == ("POST", f"{PATH}:generateContent")
    assert sent.headers["authorization"] == "Bearer test-token"
    assert sent.json["tools"] == [{"googleSearch": {}}]
    assert "responseMimeType" not in sent.json.get("generationConfig", {})
    system = sent.json["systemInstruction"]["parts"][0]["text"]
    assert system == "Answer in two sentences.\n\nThe user is located in: Berlin."
    assert [turn["role"] for turn in sent.json["contents"]] == ["user"]
    assert result.grounded_effective is True
    assert result.citations
    assert result.search_entry_point is not None
    for citation in result.citations:
        assert citation_problems(citation, result.content) == []


async def test_calls_leave_a_shared_config_as_it_was(
    adapter: VertexAdapter, async_adapter: VertexAdapter, settings: RouterSettings
) -> None:
    """The SDK changes nothing in the config calls share: after sync and async calls it is the
    config a fresh build gives."""
    request = _request(grounded=True)
    (step,) = plan_steps(request)
    call = call_for(request, settings, step, [])
    assert call is not None
    before = call["config"].model_dump()
    adapter.complete(request, settings)
    await async_adapter.acomplete(request, settings)
    again = call_for(request, settings, step, [])
    assert again is not None
    assert again["config"] is call["config"]
    assert call["config"].model_dump() == before


def _assert_two_step(result: Any, requests: list[Any]) -> None:
    search, reshape = requests
    assert search.path == reshape.path == f"{PATH}:generateContent"
    assert search.json["tools"] == [{"googleSearch": {}}]
    assert "responseMimeType" not in search.json.get("generationConfig", {})
    assert "responseJsonSchema" not in search.json.get("generationConfig", {})
    assert "tools" not in reshape.json
    assert reshape.json["generationConfig"]["responseMimeType"] == "application/json"
    assert reshape.json["generationConfig"]["responseJsonSchema"] == SCHEMA
    step1_text = result.metadata["step1"]["content"]
    model_turn = reshape.json["contents"][-2]
    assert (model_turn["role"], model_turn["parts"][0]["text"]) == ("model", step1_text)
    assert "JSON" in reshape.json["contents"][-1]["parts"][0]["text"]

    assert json.loads(result.content) == result.parsed
    assert set(result.parsed) >= {"city", "summary"}
    assert result.metadata["two_step"] is True
    assert result.grounded_effective is True
    assert result.web_search_queries
    assert result.citations
    for citation in result.citations:
        assert citation_problems(citation, step1_text) == []
    step1_usage = result.metadata["step1"]["usage"]
    assert result.usage.total_tokens > step1_usage["total_tokens"]


def test_two_step_grounded_json(
    adapter: VertexAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """Grounded + schema: search without JSON, then JSON without tools; step 1's citations."""
    result = adapter.complete(_request(grounded=True, json_schema=SCHEMA), settings)
    _assert_two_step(result, emulator.requests)


def test_required_two_step_skips_the_reshape_when_step_one_did_not_search(
    adapter: VertexAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """REQUIRED grounded JSON whose step 1 skipped the search makes no step 2 call."""
    request = _request(
        "Weather in Berlin? [[emulator:fault=no_search]]",
        grounded=True,
        grounding_mode="REQUIRED",
        json_schema=SCHEMA,
    )
    result = adapter.complete(request, settings)
    assert len(emulator.requests) == 1
    assert result.grounded_effective is False
    assert result.parsed is None
    assert result.metadata["two_step"] is True
    assert result.metadata["step2_skipped"]


async def test_two_step_grounded_json_async(
    async_adapter: VertexAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """The async twin sends the same two calls and returns the same shape of result."""
    result = await async_adapter.acomplete(_request(grounded=True, json_schema=SCHEMA), settings)
    _assert_two_step(result, emulator.requests)


def test_json_without_grounding_is_one_call(
    adapter: VertexAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """Not grounded + JSON: one call with the JSON settings and no tools."""
    result = adapter.complete(_request(json_schema=SCHEMA), settings)
    (sent,) = emulator.requests
    assert "tools" not in sent.json
    assert sent.json["generationConfig"]["responseMimeType"] == "application/json"
    assert isinstance(result.parsed, dict)
    assert result.metadata["two_step"] is False


def _faulted(kind: str) -> LLMRequest:
    return _request(faulted_prompt(kind), grounded=True, timeout_s=fault_timeout_s(kind))


def _call(mode: str, adapter: VertexAdapter, settings: RouterSettings) -> AdapterResult:
    if mode == "sync":
        return adapter.complete(_request(), settings)
    return asyncio.run(adapter.acomplete(_request(), settings))


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_refused_connection_is_a_connection_error(
    mode: str, settings: RouterSettings, adapter: VertexAdapter
) -> None:
    """Nothing listening is 'connection', not 'timeout', on either client's transport."""
    with refusing_base_url() as base:
        elsewhere = settings.model_copy(update={"vertex_base_url": base})
        with pytest.raises(ProviderTransientError) as raised:
            _call(mode, adapter, elsewhere)
    assert raised.value.reason == "connection"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_echoed_token_is_redacted_without_a_router(
    mode: str, settings: RouterSettings, adapter: VertexAdapter, emulator: Emulator
) -> None:
    """The adapter alone still keeps its access token out of a provider message quoting it."""
    token = f"echoed-vertex-token-{mode}-7f3a"  # registered by nothing but this adapter
    quoting = {
        "error": {"code": 400, "message": f"bad token {token}", "status": "INVALID_ARGUMENT"}
    }
    emulator.enqueue_reply("vertex", json.dumps(quoting).encode(), status=400)
    with pytest.raises(ProviderRequestError) as raised:
        _call(mode, adapter, settings.model_copy(update={"vertex_access_token": SecretStr(token)}))
    assert "bad token" in str(raised.value)
    assert token not in str(raised.value)


def test_no_citations_warns(adapter: VertexAdapter, settings: RouterSettings) -> None:
    """Searched but nothing cited: grounded, no citations, and the [CITATIONS] warning."""
    result = adapter.complete(_faulted("no_citations"), settings)
    assert result.grounded_effective is True
    assert result.citations == []
    (warning,) = result.warnings
    assert warning.startswith("[CITATIONS] Vertex: 1 tool calls but 0 citations extracted.")


def test_router_retries_a_rate_limit_once(settings: RouterSettings) -> None:
    """Through the router, one 429 is retried after its Retry-After and the call succeeds."""
    waits: list[float] = []
    with UnifiedLLMAdapter(settings, sleep=waits.append) as router:
        response = router.route(
            _request("Weather in Oslo? [[emulator:fault=429:2*1]]", grounded=True)
        )
    assert (response.attempts, waits) == (2, [2.0])
    assert response.metadata["citations"] == response.citations != []


@pytest.mark.parametrize(
    ("kind", "reason"), [("no_search", "not_invoked"), ("no_citations", "no_citations")]
)
def test_required_grounding_fails_closed(kind: str, reason: str, settings: RouterSettings) -> None:
    """REQUIRED: no search, or a search with nothing cited, is rejected by the router."""
    request = _faulted(kind).model_copy(update={"grounding_mode": "REQUIRED"})
    with (
        UnifiedLLMAdapter(settings) as router,
        pytest.raises(GroundingRequiredFailedError) as raised,
    ):
        router.route(request)
    assert raised.value.reason == reason


def test_async_calls_survive_a_new_event_loop(
    adapter: VertexAdapter, settings: RouterSettings
) -> None:
    """One adapter serves asyncio.run twice: each loop gets clients of its own."""

    async def call() -> int:
        result = await adapter.acomplete(_request(grounded=True), settings)
        await adapter.aclose()
        return len(result.citations)

    assert asyncio.run(call()) > 0
    assert asyncio.run(call()) > 0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_proxy_variables_are_honoured(
    mode: str, settings: RouterSettings, adapter: VertexAdapter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HTTP_PROXY routes calls through the proxy (here one that refuses), NO_PROXY bypasses it."""
    with refusing_proxy(monkeypatch):
        with pytest.raises(ProviderTransientError) as raised:
            _call(mode, adapter, settings)
        assert raised.value.reason == "connection"
        adapter.close()  # the next clients read the variables afresh
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        assert _call(mode, adapter, settings).content
