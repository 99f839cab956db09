"""route_many / aroute_many end to end: every registered vendor at once, against the emulator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.registry import vendors
from router import (
    GroundingRequiredFailedError,
    LLMResponse,
    ProviderRequestError,
    ProviderTransientError,
    RequestValidationError,
    UnifiedLLMAdapter,
)
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.errors import FanoutError
from router.router import aroute_many, route_many
from support.emulated import ANSWER_TIMEOUT_S
from support.sleeps import RecordedSleeps

QUESTION = {
    "messages": [{"role": "user", "content": "What is the capital of France?"}],
    "grounded": True,
}
# A Vertex answer that never searched: REQUIRED grounding must reject it.
UNGROUNDED_VERTEX = json.dumps(
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "Paris."}]}}]}
).encode()
OPENAI_BAD_REQUEST = json.dumps(
    {"error": {"message": "Invalid model", "type": "invalid_request_error", "code": None}}
).encode()


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    """A fresh emulator per test: replies queued by one test never reach another."""
    with Emulator() as running:
        yield running


@pytest.fixture
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    sleeps = RecordedSleeps()
    settings = emulated_settings(emulator, timeout_s=ANSWER_TIMEOUT_S)
    with UnifiedLLMAdapter(settings, sleep=sleeps, async_sleep=sleeps.asleep) as built:
        yield built


def test_every_registered_vendor_answers(router: UnifiedLLMAdapter) -> None:
    """One question, every vendor of the registry: an answer each, and their aggregate."""
    result = route_many(QUESTION, vendors(), router=router)
    assert list(result.outcomes) == list(vendors())
    assert all(isinstance(outcome, LLMResponse) for outcome in result.outcomes.values())
    assert result.errors == {}
    assert result.aggregate.providers == list(vendors())
    assert result.aggregate.entries
    for vendor, response in result.responses.items():
        assert response.vendor == vendor
        assert response.grounded_effective


@pytest.mark.parametrize("failing", vendors())
def test_a_fault_on_one_vendor_leaves_every_other_answer(
    failing: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """Every registered vendor asked, one failing with HTTP 500: the rest answer and aggregate."""
    # Each vendor speaks the emulator API of its own name, so the fault reaches that vendor only.
    question = f"What is the capital of France? [[emulator:fault=500@{failing}]]"
    request = {**QUESTION, "messages": [{"role": "user", "content": question}]}
    result = route_many(request, vendors(), router=router)
    assert list(result.errors) == [failing]
    assert isinstance(result.errors[failing], ProviderTransientError)
    answered = [vendor for vendor in vendors() if vendor != failing]
    assert list(result.responses) == answered
    assert result.aggregate.providers == answered
    assert {r.api for r in emulator.requests} == set(vendors())  # each vendor was called


async def test_async_twin_gives_the_same_outcomes(router: UnifiedLLMAdapter) -> None:
    """aroute_many answers with every vendor too, from the running loop."""
    result = await aroute_many(QUESTION, vendors(), router=router)
    assert sorted(result.responses) == sorted(vendors())
    await router.aclose()


def test_one_providers_failure_never_hides_the_others_answer(
    emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """OpenAI rejects the call: its error is kept beside Vertex's answer (require='any')."""
    emulator.enqueue_reply("openai", OPENAI_BAD_REQUEST, status=400)
    result = route_many(QUESTION, ["openai", "vertex"], router=router)
    assert isinstance(result.errors["openai"], ProviderRequestError)
    assert isinstance(result.responses["vertex"], LLMResponse)
    assert result.aggregate.providers == ["vertex"]


def test_require_all_fails_when_one_provider_fails_and_lists_why(
    emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """require='all': one failure fails the call; the error names it and keeps the answers."""
    emulator.enqueue_reply("openai", OPENAI_BAD_REQUEST, status=400)
    with pytest.raises(FanoutError) as raised:
        route_many(QUESTION, ["openai", "vertex"], router=router, require="all")
    error = raised.value
    assert "openai: ProviderRequestError" in str(error)
    assert set(error.errors) == {"openai"}
    assert error.to_dict()["providers"]["openai"]["type"] == "ProviderRequestError"
    assert isinstance(error.result.responses["vertex"], LLMResponse)  # type: ignore[attr-defined]


def test_required_grounding_applies_per_provider(
    emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """REQUIRED: Vertex answered without searching, so it alone fails with not_invoked."""
    emulator.enqueue_reply("vertex", UNGROUNDED_VERTEX)
    result = route_many(
        {**QUESTION, "grounding_mode": "REQUIRED"}, ["openai", "vertex"], router=router
    )
    failure = result.errors["vertex"]
    assert isinstance(failure, GroundingRequiredFailedError)
    assert failure.reason == "not_invoked"
    assert result.responses["openai"].citations


def test_require_any_fails_only_when_every_provider_failed(
    emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """When no provider answers, even require='any' fails, listing both reasons."""
    emulator.enqueue_reply("openai", OPENAI_BAD_REQUEST, status=400)
    emulator.enqueue_reply("vertex", UNGROUNDED_VERTEX)
    with pytest.raises(FanoutError) as raised:
        route_many({**QUESTION, "grounding_mode": "REQUIRED"}, ["openai", "vertex"], router=router)
    message = str(raised.value)
    assert (
        "openai: ProviderRequestError (invalid_request)" in message or "openai: Provider" in message
    )
    assert "vertex: GroundingRequiredFailedError (not_invoked)" in message


def test_models_come_from_the_mapping_then_settings_then_the_registry(
    emulator: Emulator,
) -> None:
    """models[vendor] wins; then GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>; then the registry."""
    settings = emulated_settings(emulator, default_model_vertex="gemini-3-flash")
    with UnifiedLLMAdapter(settings) as router:
        result = route_many(
            QUESTION, ["openai", "vertex"], models={"openai": "gpt-5-mini"}, router=router
        )
    assert result.responses["openai"].model == "gpt-5-mini"
    assert result.responses["vertex"].model == "gemini-3-flash"
    paths = [request.path for request in emulator.requests]
    assert any("gemini-3-flash" in path for path in paths)
    assert [r.json["model"] for r in emulator.requests if r.api == "openai"] == ["gpt-5-mini"]


def test_the_requests_own_model_serves_its_own_vendor_only(router: UnifiedLLMAdapter) -> None:
    """A request naming openai and gpt-5-mini keeps that model for OpenAI, not for Vertex."""
    request: dict[str, Any] = {**QUESTION, "vendor": "openai", "model": "gpt-5-mini"}
    result = route_many(request, ["openai", "vertex"], router=router)
    assert result.responses["openai"].model == "gpt-5-mini"
    assert result.responses["vertex"].model != "gpt-5-mini"


@pytest.mark.parametrize(
    ("vendor_list", "options", "named"),
    [
        ([], {}, "vendors"),
        ("openai", {}, "vendors"),
        (["openai", "openai"], {}, "vendors"),
        (["openai", "nobody"], {}, "vendor"),
        (["openai"], {"require": "most"}, "require"),
        (["openai"], {"models": {"vertex": "gemini-2.5-flash"}}, "models"),
        (["openai", 3], {}, "vendors"),
        (["openai", ["vertex"]], {}, "vendors"),
        (["openai", "OpenAI"], {}, "vendors"),
        (["openai"], {"models": "gpt-5"}, "models"),
        (["openai"], {"models": {"openai": " "}}, "models"),
        (["openai"], {"models": {"openai": 5}}, "models"),
    ],
    ids=[
        "empty",
        "a-string",
        "twice",
        "unknown",
        "bad-require",
        "model-of-another-vendor",
        "a-number",
        "a-list",
        "twice-in-other-case",
        "models-not-an-object",
        "blank-model",
        "model-not-a-name",
    ],
)
def test_bad_fanout_input_is_a_request_error(
    router: UnifiedLLMAdapter, vendor_list: Any, options: dict[str, Any], named: str
) -> None:
    """Bad vendors, require or models: a RequestValidationError naming what was wrong, no call."""
    with pytest.raises(RequestValidationError) as raised:
        route_many(QUESTION, vendor_list, router=router, **options)
    assert str(raised.value).startswith(named)


def test_vendor_names_are_case_insensitive(router: UnifiedLLMAdapter) -> None:
    """'OpenAI' and 'VERTEX' name the vendors as a request's vendor field does."""
    result = route_many(
        QUESTION, ["OpenAI", "VERTEX"], models={"OpenAI": "gpt-5-mini"}, router=router
    )
    assert list(result.outcomes) == ["openai", "vertex"]
    assert result.responses["openai"].model == "gpt-5-mini"


def test_a_required_failure_stays_out_of_the_aggregate_and_in_to_dict(
    router: UnifiedLLMAdapter,
) -> None:
    """OpenAI skips the search (a directive for OpenAI only): the aggregate is Vertex's alone."""
    question = "Which sources cover the Rhine floods? [[emulator:fault=no_search@openai]]"
    request = {**QUESTION, "messages": [{"role": "user", "content": question}]}
    result = route_many(
        {**request, "grounding_mode": "REQUIRED"}, ["openai", "vertex"], router=router
    )
    assert result.aggregate.providers == ["vertex"]
    assert result.aggregate.entries
    assert all(list(entry["ranks"]) == ["vertex"] for entry in result.aggregate.entries)
    assert result.aggregate.agreement == []
    providers = result.to_dict()["providers"]
    assert providers["openai"]["error"]["type"] == "GroundingRequiredFailedError"
    assert providers["openai"]["error"]["reason"] == "not_invoked"
    assert providers["vertex"]["ok"] is True
