"""The Gemini Developer API adapter on the wire: the real google-genai client (``vertexai=False``,
an API key) against the loopback emulator.

What differs from Vertex AI is checked here: the path (``/v1beta/models/...``, the pinned API
version), the API key header instead of OAuth, the body without Vertex-only fields, the errors
the Gemini API answers (a bad key is a 400 ``API_KEY_INVALID``; every fault kind is in
tests/adapters/test_contract.py).
The mapping, spans and two-step JSON are the Vertex package's, run here end to end once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio
from pydantic import SecretStr

from adapters.vertex.adapter import GeminiAdapter
from router.emulator import Emulator
from router.errors import (
    ProviderRequestError,
)
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from router.types import LLMRequest
from support.citations import citation_problems
from support.wire_faults import fault_timeout_s, faulted_prompt

MODEL = "gemini-2.5-flash"
PATH = f"/v1beta/models/{MODEL}"
KEY = "gemini-wire-test-key"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "summary": {"type": "string"}},
    "required": ["city", "summary"],
}


@pytest.fixture
def settings(emulator: Emulator, make_settings: Callable[..., RouterSettings]) -> RouterSettings:
    emulator.clear_requests()
    return make_settings(
        gemini_api_key=KEY, gemini_base_url=emulator.gemini_base_url, timeout_s=5.0
    )


@pytest.fixture
def adapter() -> Iterator[GeminiAdapter]:
    made = GeminiAdapter()
    yield made
    made.close()


@pytest_asyncio.fixture
async def async_adapter() -> AsyncIterator[GeminiAdapter]:
    made = GeminiAdapter()
    yield made
    await made.aclose()
    made.close()


def _request(prompt: str = "What is the weather in Berlin today?", **fields: Any) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": "gemini",
            "model": MODEL,
            "messages": [
                {"role": "system", "content": "Answer in two sentences."},
                {"role": "user", "content": prompt},
            ],
            **fields,
        }
    )


def test_grounded_call_on_the_wire(
    adapter: GeminiAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """One POST to v1beta generateContent with the key header, the googleSearch tool, no OAuth."""
    result = adapter.complete(_request(grounded=True, user_location={"city": "Berlin"}), settings)
    (sent,) = emulator.requests
    assert (sent.method, sent.path) == ("POST", f"{PATH}:generateContent")
    assert sent.headers["x-goog-api-key"] == KEY
    assert "authorization" not in sent.headers
    assert sent.json["tools"] == [{"googleSearch": {}}]
    system = sent.json["systemInstruction"]["parts"][0]["text"]
    assert system == "Answer in two sentences.\n\nThe user is located in: Berlin."
    assert result.grounded_effective is True
    assert result.citations
    for citation in result.citations:
        assert citation["provider"] == "gemini"
        assert citation_problems(citation, result.content, provider="gemini") == []


def test_the_api_version_is_a_setting(
    adapter: GeminiAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """GROUNDING_ROUTER_GEMINI_API_VERSION moves the call to that version's path."""
    adapter.complete(_request(), settings.model_copy(update={"gemini_api_version": "v1"}))
    (sent,) = emulator.requests
    assert sent.path == f"/v1/models/{MODEL}:generateContent"


def test_two_step_grounded_json(
    adapter: GeminiAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """Grounded + schema: search without JSON, then the JSON reshape; step 1's citations."""
    result = adapter.complete(_request(grounded=True, json_schema=SCHEMA), settings)
    search, reshape = emulator.requests
    assert search.json["tools"] == [{"googleSearch": {}}]
    assert "tools" not in reshape.json
    assert reshape.json["generationConfig"]["responseJsonSchema"] == SCHEMA
    assert result.metadata["two_step"] is True
    assert set(result.parsed) >= {"city", "summary"}
    step1_text = result.metadata["step1"]["content"]
    assert result.citations
    for citation in result.citations:
        assert citation_problems(citation, step1_text, provider="gemini") == []


async def test_grounded_call_async(
    async_adapter: GeminiAdapter, settings: RouterSettings, emulator: Emulator
) -> None:
    """The async client sends the same request and gets the same kind of result."""
    result = await async_adapter.acomplete(_request(grounded=True), settings)
    (sent,) = emulator.requests
    assert sent.path == f"{PATH}:generateContent"
    assert result.grounded_effective is True
    assert {citation["provider"] for citation in result.citations} == {"gemini"}


def _faulted(kind: str) -> LLMRequest:
    return _request(faulted_prompt(kind), grounded=True, timeout_s=fault_timeout_s(kind))


def test_bad_key_names_the_key_settings(adapter: GeminiAdapter, settings: RouterSettings) -> None:
    """The Gemini API's API_KEY_INVALID says which settings hold the key."""
    with pytest.raises(ProviderRequestError) as raised:
        adapter.complete(_faulted("401"), settings)
    assert "GOOGLE_API_KEY" in str(raised.value)
    assert "GEMINI_API_KEY" in str(raised.value)


def test_rate_limit_waits_the_retry_info_delay(settings: RouterSettings) -> None:
    """A 429 says its delay in RetryInfo (no Retry-After header); the router waits that long."""
    waits: list[float] = []
    with UnifiedLLMAdapter(settings, sleep=waits.append) as router:
        response = router.route(
            _request("Weather in Oslo? [[emulator:fault=429:3*1]]", grounded=True)
        )
    assert (response.attempts, waits) == (2, [3.0])


def test_no_citations_warns_with_the_gemini_label(
    adapter: GeminiAdapter, settings: RouterSettings
) -> None:
    """Searched but nothing cited: the [CITATIONS] warning names Gemini."""
    result = adapter.complete(_faulted("no_citations"), settings)
    (warning,) = result.warnings
    assert warning.startswith("[CITATIONS] Gemini: 1 tool calls but 0 citations extracted.")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_echoed_key_is_redacted_without_a_router(
    mode: str, settings: RouterSettings, adapter: GeminiAdapter, emulator: Emulator
) -> None:
    """The adapter alone keeps its API key out of a provider message quoting it."""
    key = f"echoed-gemini-key-{mode}-51c2"  # registered by nothing but this adapter
    quoting = {"error": {"code": 400, "message": f"bad key {key}", "status": "INVALID_ARGUMENT"}}
    emulator.enqueue_reply("gemini", json.dumps(quoting).encode(), status=400)
    keyed = settings.model_copy(update={"gemini_api_key": SecretStr(key)})
    call: Callable[[], object] = (
        (lambda: adapter.complete(_request(), keyed))
        if mode == "sync"
        else (lambda: asyncio.run(adapter.acomplete(_request(), keyed)))
    )
    with pytest.raises(ProviderRequestError) as raised:
        call()
    assert "bad key" in str(raised.value)
    assert key not in str(raised.value)
