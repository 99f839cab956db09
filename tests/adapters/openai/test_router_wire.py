"""route() through the OpenAI adapter and the emulator: one retry layer, REQUIRED fails closed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from router import Router
from router.emulator import Emulator
from router.errors import GroundingRequiredFailedError, ProviderTransientError
from router.settings import RouterSettings
from support.logs import capture_logs

QUESTION = "What is the capital of France?"


def request(question: str = QUESTION, **fields: object) -> dict[str, object]:
    return {
        "vendor": "openai",
        "model": "gpt-5",
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
        "grounding_mode": "REQUIRED",
        "request_id": "q-1",
        **fields,
    }


@pytest.fixture
def router_settings(
    emulator: Emulator, make_settings: Callable[..., RouterSettings]
) -> RouterSettings:
    return make_settings(
        openai_api_key="sk-test", openai_base_url=emulator.openai_base_url, max_attempts=3
    )


def test_rate_limit_is_retried_once_after_its_retry_after(
    router_settings: RouterSettings, emulator: Emulator
) -> None:
    """A 429 with Retry-After 2 is waited out once by the router; the emulator sees 2 attempts."""
    waits: list[float] = []
    with Router(router_settings, sleep=waits.append) as router:
        response = router.route(request(f"{QUESTION} [[emulator:fault=429:2*1]]"))
    assert response.attempts == 2
    assert waits == [2.0]
    assert len(emulator.requests) == 2
    assert response.citations
    assert response.metadata["citations"] == response.citations


def test_attempts_stop_at_the_router_limit(
    router_settings: RouterSettings, emulator: Emulator
) -> None:
    """A 500 on every attempt gives up after max_attempts requests, never more."""
    with (
        Router(router_settings, sleep=lambda _: None) as router,
        pytest.raises(ProviderTransientError) as caught,
    ):
        router.route(request(f"{QUESTION} [[emulator:fault=500]]"))
    assert caught.value.attempts == 3
    assert len(emulator.requests) == 3


@pytest.mark.parametrize(
    ("fault", "reason"),
    [("no_search", "not_invoked"), ("no_citations", "no_citations")],
)
def test_required_grounding_fails_closed(
    fault: str, reason: str, router_settings: RouterSettings, emulator: Emulator
) -> None:
    """REQUIRED: no search is not_invoked; a search with nothing to cite is no_citations."""
    with Router(router_settings) as router, pytest.raises(GroundingRequiredFailedError) as caught:
        router.route(request(f"{QUESTION} [[emulator:fault={fault}]]"))
    assert caught.value.reason == reason
    assert "tool_choice" not in emulator.requests[0].json


def test_required_sends_no_tool_choice_by_default(
    router_settings: RouterSettings, emulator: Emulator
) -> None:
    """REQUIRED is post-validated: a deployment that refuses a forced tool still answers."""
    with Router(router_settings) as router:
        response = router.route(request(f"{QUESTION} [[emulator:refuse=tool_choice]]"))
    assert response.citations
    assert "tool_choice" not in emulator.requests[0].json
    assert len(emulator.requests) == 1
    assert "request_fallbacks" not in response.metadata
    assert "emulator:" not in response.content


def test_forced_search_sends_tool_choice(
    router_settings: RouterSettings, emulator: Emulator
) -> None:
    """GROUNDING_ROUTER_OPENAI_FORCE_SEARCH=true forces the search for REQUIRED requests."""
    forced = router_settings.model_copy(update={"openai_force_search": True})
    with Router(forced) as router:
        router.route(request())
    assert emulator.requests[0].json["tool_choice"] == "required"


@pytest.mark.parametrize("call", ["route", "aroute"])
@pytest.mark.parametrize(
    ("refused", "fallbacks"),
    [
        ("tool_choice", ["tool_choice_dropped"]),
        ("web_search", ["web_search_preview"]),
        ("tool_choice,web_search", ["tool_choice_dropped", "web_search_preview"]),
    ],
    ids=["tool-choice", "web-search", "both"],
)
def test_refused_parts_are_retried_once_changed(
    refused: str,
    fallbacks: list[str],
    call: str,
    router_settings: RouterSettings,
    emulator: Emulator,
) -> None:
    """A 400 naming tool_choice drops it; one refusing web_search falls back to the preview
    tool; the answer says so in metadata, and each change is logged."""
    last_tool = "web_search_preview" if "web_search_preview" in fallbacks else "web_search"
    forced = router_settings.model_copy(update={"openai_force_search": True})
    asked = request(f"{QUESTION} [[emulator:refuse={refused}]]")
    with capture_logs() as events, Router(forced) as router:
        response = router.route(asked) if call == "route" else asyncio.run(router.aroute(asked))
    assert response.citations
    assert response.metadata["request_fallbacks"] == fallbacks
    sent = [entry.json for entry in emulator.requests]
    assert len(sent) == len(fallbacks) + 1
    assert sent[-1]["tools"][0]["type"] == last_tool
    assert ("tool_choice" in sent[-1]) is ("tool_choice_dropped" not in fallbacks)
    logged = [e["fallback"] for e in events if e["event"] == "openai_request_fallback"]
    assert logged == fallbacks


def test_web_search_fallback_needs_no_forcing(
    router_settings: RouterSettings, emulator: Emulator
) -> None:
    """Without forcing, a refused web_search still falls back to web_search_preview once."""
    with Router(router_settings) as router:
        response = router.route(request(f"{QUESTION} [[emulator:refuse=web_search]]"))
    assert response.metadata["request_fallbacks"] == ["web_search_preview"]
    assert len(emulator.requests) == 2


async def test_aroute_with_grounding(router_settings: RouterSettings) -> None:
    """aroute() returns grounded citations through the async client."""
    async with Router(router_settings) as router:
        response = await router.aroute(request())
    assert response.grounded_effective
    assert response.citations[0]["cited"]
    assert response.request_id == "q-1"


def test_a_stream_opens_after_a_refused_forced_tool(
    router_settings: RouterSettings, emulator: Emulator
) -> None:
    """A stream whose forced tool is refused opens once more without it, and completes."""
    forced = router_settings.model_copy(update={"openai_force_search": True})
    with Router(forced) as router:
        events = list(router.stream(request(f"{QUESTION} [[emulator:refuse=tool_choice]]")))
    assert events[-1].response.citations
    sent = [entry.json for entry in emulator.requests]
    assert ["tool_choice" in body for body in sent] == [True, False]
