"""route() through the OpenAI adapter and the emulator: one retry layer, REQUIRED fails closed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from router import Router
from router.emulator import Emulator
from router.errors import GroundingRequiredFailedError, ProviderTransientError
from router.settings import RouterSettings

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
    assert emulator.requests[0].json["tool_choice"] == "required"


async def test_aroute_with_grounding(router_settings: RouterSettings) -> None:
    """aroute() returns grounded citations through the async client."""
    async with Router(router_settings) as router:
        response = await router.aroute(request())
    assert response.grounded_effective
    assert response.citations[0]["cited"]
    assert response.request_id == "q-1"
