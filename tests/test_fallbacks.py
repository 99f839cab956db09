"""Fallbacks across vendors, against the emulator: every trigger and non-trigger, for every
registered vendor as primary, through route(), aroute() and stream()/astream().

Each primary's fallback is the next registered vendor. Faults are aimed at one API with
``@vendor``, so the same prompt fails on the primary and is answered by the fallback.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.emulator import Emulator
from router.errors import (
    ConfigurationError,
    GroundingRequiredFailedError,
    ProviderRequestError,
    ProviderTransientError,
    RouterError,
)
from router.router import Router
from router.streaming.events import Completed, StreamEvent
from router.types import LLMResponse, Usage
from support.emulated import MODELS, VENDORS, emulator_settings, grounded_request
from support.sleeps import RecordedSleeps

MODEL_OF: dict[str, str] = {str(vendor): model for vendor, model in MODELS.items()}
NEXT = {vendor: VENDORS[(index + 1) % len(VENDORS)] for index, vendor in enumerate(VENDORS)}
CALLS = ("route", "aroute", "stream", "astream")


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[Router]:
    sleeps = RecordedSleeps()
    settings = emulator_settings(
        emulator, max_attempts=2, retry_initial_delay_s=0.0, retry_max_delay_s=0.0, timeout_s=5.0
    )
    with Router(settings, sleep=sleeps, async_sleep=sleeps.asleep) as built:
        yield built


def _collect(events: Iterator[StreamEvent]) -> LLMResponse:
    completed = [event for event in events if isinstance(event, Completed)]
    assert len(completed) == 1
    return completed[0].response


async def _acollect(router: Router, request: dict[str, Any]) -> LLMResponse:
    completed = [e async for e in router.astream(request) if isinstance(e, Completed)]
    assert len(completed) == 1
    return completed[0].response


def _call(router: Router, how: str, request: dict[str, Any]) -> LLMResponse:
    if how == "route":
        return router.route(request)
    if how == "aroute":
        return asyncio.run(router.aroute(request))
    if how == "stream":
        return _collect(router.stream(request))
    return asyncio.run(_acollect(router, request))


def _outcome(router: Router, how: str, request: dict[str, Any]) -> LLMResponse | RouterError:
    try:
        return _call(router, how, request)
    except RouterError as error:
        return error


def _expected_reason(vendor: str, fault: str) -> str:
    """The REQUIRED failure reason the fault matrix states for ``fault`` on ``vendor``."""
    matrix = json.loads((Path(__file__).parent / "data" / "fault_matrix.json").read_text())
    (cell,) = [
        c
        for c in matrix["cells"]
        if (c["fault"], c["vendor"], c["mode"]) == (fault, vendor, "REQUIRED")
    ]
    reason: str = cell["expected"]["reason"]
    return reason


def _apis(emulator: Emulator) -> list[str | None]:
    return [recorded.api for recorded in emulator.requests]


def _request(primary: str, fault: str, *, mode: str = "REQUIRED", **extra: Any) -> dict[str, Any]:
    question = f"Who maintains the CPython language reference? [[emulator:fault={fault}]]"
    return grounded_request(
        primary, question, mode=mode, fallbacks=[NEXT[primary]], request_id="q-1", **extra
    )


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("primary", VENDORS)
def test_transient_error_after_retries_falls_back(
    router: Router, emulator: Emulator, primary: str, how: str
) -> None:
    """A 500 on every retry of the primary hands the call to the next vendor, which answers."""
    emulator.clear_requests()
    response = _call(router, how, _request(primary, f"500@{primary}", mode="AUTO"))
    fallback = NEXT[primary]
    assert (response.vendor, response.model) == (fallback, MODEL_OF[fallback])
    assert response.request_id == "q-1"
    tried = response.metadata["attempts"]
    assert [(a["vendor"], a["outcome"], a["reason"]) for a in tried] == [
        (primary, "failed", "server_error"),
        (fallback, "answered", None),
    ]
    assert tried[0]["error"] == "ProviderTransientError"
    assert all(a["latency_ms"] >= 0 for a in tried)
    assert _apis(emulator) == [primary, primary, fallback]


@pytest.mark.parametrize("how", ["route", "aroute"])
@pytest.mark.parametrize("primary", VENDORS)
def test_required_failure_falls_back_and_costs_add_up(
    router: Router, emulator: Emulator, primary: str, how: str
) -> None:
    """An answer REQUIRED rejects is paid for, then the next vendor answers: the cost is both."""
    fallback = NEXT[primary]
    request = _request(primary, f"no_search@{primary}")
    alone = router.route(
        {**request, "vendor": fallback, "model": MODEL_OF[fallback], "fallbacks": []}
    )
    emulator.clear_requests()
    response = _call(router, how, request)
    assert response.vendor == fallback
    assert response.grounded_effective
    assert response.citations
    failed, answered = response.metadata["attempts"]
    assert (failed["outcome"], failed["reason"]) == ("failed", "not_invoked")
    assert failed["error"] == "GroundingRequiredFailedError"
    assert failed["cost"] is not None
    assert failed["cost"] > 0
    assert alone.usage.cost is not None
    assert answered["cost"] == pytest.approx(alone.usage.cost.total)
    assert response.usage.cost is not None
    assert response.usage.cost.total == pytest.approx(failed["cost"] + answered["cost"])
    assert _apis(emulator) == [primary, fallback]


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("primary", VENDORS)
def test_request_error_never_falls_back(
    router: Router, emulator: Emulator, primary: str, how: str
) -> None:
    """A 400 from the primary is the caller's mistake: raised at once, the fallback never called."""
    emulator.clear_requests()
    error = _outcome(router, how, _request(primary, "400", mode="AUTO"))
    assert isinstance(error, ProviderRequestError)
    assert error.fallback_attempts is not None
    assert [(a["vendor"], a["outcome"]) for a in error.fallback_attempts] == [(primary, "failed")]
    assert _apis(emulator) == [primary]


@pytest.mark.parametrize("primary", VENDORS)
def test_answer_from_primary_records_one_attempt(
    router: Router, emulator: Emulator, primary: str
) -> None:
    """When the primary answers, it is the only vendor called and the only attempt listed."""
    emulator.clear_requests()
    response = router.route(_request(primary, f"no_search@{NEXT[primary]}"))
    assert response.vendor == primary
    assert [a["outcome"] for a in response.metadata["attempts"]] == ["answered"]
    assert response.usage.cost is not None
    assert response.usage.cost.total == pytest.approx(response.metadata["attempts"][0]["cost"])
    assert _apis(emulator) == [primary]


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("primary", VENDORS)
def test_all_failing_raises_the_last_error_with_every_attempt(
    router: Router, emulator: Emulator, primary: str, how: str
) -> None:
    """When every vendor fails, the last error is raised and lists every vendor tried."""
    others = [vendor for vendor in VENDORS if vendor != primary]
    request = {**_request(primary, "no_search"), "fallbacks": others}
    if how.endswith("stream"):
        request = {**_request(primary, "503", mode="AUTO"), "fallbacks": others}
    error = _outcome(router, how, request)
    assert isinstance(error, GroundingRequiredFailedError | ProviderTransientError)
    assert error.vendor == others[-1]
    assert error.fallback_attempts is not None
    assert [a["vendor"] for a in error.fallback_attempts] == [primary, *others]
    assert {a["outcome"] for a in error.fallback_attempts} == {"failed"}
    assert error.to_dict()["fallback_attempts"] == error.fallback_attempts


@pytest.mark.parametrize("how", ["route", "aroute"])
@pytest.mark.parametrize("primary", VENDORS)
def test_all_rejected_the_error_costs_every_attempt(router: Router, primary: str, how: str) -> None:
    """Every vendor's answer rejected: the error's usage is the last answer's, its cost all of
    theirs, as an answer's usage.cost adds up its attempts."""
    error = _outcome(router, how, _request(primary, "no_search"))
    assert isinstance(error, GroundingRequiredFailedError)
    assert error.fallback_attempts is not None
    paid = [attempt["cost"] for attempt in error.fallback_attempts]
    assert len(paid) == 2
    assert all(cost is not None and cost > 0 for cost in paid)
    assert isinstance(error.response, LLMResponse)
    assert isinstance(error.usage, Usage)
    assert error.usage.cost is not None
    assert error.usage.cost.total == pytest.approx(sum(paid))
    assert error.usage.input_tokens == error.response.usage.input_tokens
    assert error.to_dict()["usage"] == error.usage.model_dump(mode="json")


@pytest.mark.parametrize("primary", VENDORS)
def test_a_rejected_answer_then_a_failed_call_costs_the_answer(
    router: Router, primary: str
) -> None:
    """The primary's answer rejected, the fallback's call failed: the final error (no answer of
    its own) still carries what the rejected answer cost, and no token counts."""
    question = (
        "Who maintains the CPython language reference? "
        f"[[emulator:fault=no_search@{primary}]] [[emulator:fault=500@{NEXT[primary]}]]"
    )
    request = grounded_request(
        primary, question, mode="REQUIRED", fallbacks=[NEXT[primary]], request_id="q-1"
    )
    error = _outcome(router, "route", request)
    assert isinstance(error, ProviderTransientError)
    assert error.fallback_attempts is not None
    rejected, failed = error.fallback_attempts
    assert (rejected["reason"], failed["cost"]) == ("not_invoked", None)
    assert isinstance(error.usage, Usage)
    assert error.usage.cost is not None
    assert error.usage.cost.total == rejected["cost"]
    assert error.usage.input_tokens is None


def test_a_failed_call_without_fallbacks_costs_nothing(router: Router) -> None:
    """A call that got no answer carries no usage: nothing was paid for."""
    error = _outcome(router, "route", {**_request("openai", "500", mode="AUTO"), "fallbacks": []})
    assert isinstance(error, ProviderTransientError)
    assert error.usage is None
    assert "usage" not in error.to_dict()


@pytest.mark.parametrize("how", CALLS)
def test_vendor_that_cannot_take_the_request_is_skipped(
    router: Router, emulator: Emulator, how: str
) -> None:
    """A fallback without the request's domain filter is skipped, with why, and the next tried."""
    emulator.clear_requests()
    request = {
        **_request("openai", "500@openai", mode="AUTO", allowed_domains=["python.org"]),
        "fallbacks": ["gemini", {"vendor": "perplexity", "model": "sonar-pro"}],
    }
    response = _call(router, how, request)
    assert (response.vendor, response.model) == ("perplexity", "sonar-pro")
    skipped = response.metadata["attempts"][1]
    assert (skipped["vendor"], skipped["outcome"]) == ("gemini", "skipped")
    assert skipped["reason"] == "unsupported_allowed_domains"
    assert "allowed domains" in skipped["message"]
    assert _apis(emulator) == ["openai", "openai", "perplexity"]


def test_configuration_error_never_falls_back(emulator: Emulator) -> None:
    """A vendor the router is not configured for raises at once; the fallback is not called."""
    settings = emulator_settings(emulator, google_cloud_project=None, max_attempts=1)
    emulator.clear_requests()
    with Router(settings) as router, pytest.raises(ConfigurationError) as raised:
        router.route(grounded_request("vertex", "What is PEP 8?", fallbacks=["openai"]))
    assert raised.value.fallback_attempts is not None
    assert len(raised.value.fallback_attempts) == 1
    assert _apis(emulator) == []


def test_cancellation_never_falls_back(router: Router, emulator: Emulator) -> None:
    """Cancelling the caller's task mid-call ends the call: the fallback vendor is never asked."""
    emulator.clear_requests()

    async def cancelled() -> None:
        task = asyncio.create_task(router.aroute(_request("openai", "hang:30@openai")))
        await asyncio.to_thread(emulator.wait_for_requests, 1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    assert _apis(emulator) == ["openai"]


@pytest.mark.parametrize("how", ["stream", "astream"])
@pytest.mark.parametrize("primary", VENDORS)
def test_stream_never_falls_back_once_an_event_was_delivered(
    router: Router, emulator: Emulator, primary: str, how: str
) -> None:
    """A stream whose REQUIRED check fails at its end has delivered text: no fallback then."""
    emulator.clear_requests()
    error = _outcome(router, how, _request(primary, f"no_search@{primary}"))
    assert isinstance(error, GroundingRequiredFailedError)
    assert error.fallback_attempts is not None
    assert [a["vendor"] for a in error.fallback_attempts] == [primary]
    assert _apis(emulator) == [primary]


def test_route_keyword_replaces_the_request_fallbacks(router: Router, emulator: Emulator) -> None:
    """``route(..., fallbacks=[...])`` takes the place of the request's own list."""
    emulator.clear_requests()
    request = _request("openai", "500@openai", mode="AUTO")
    response = router.route(request, fallbacks=[{"vendor": "anthropic"}])
    assert response.vendor == "anthropic"
    assert _apis(emulator) == ["openai", "openai", "anthropic"]


def test_no_fallbacks_leaves_the_response_as_before(router: Router) -> None:
    """Without fallbacks nothing is added: no attempts list in the metadata."""
    request = grounded_request("openai", "Who maintains the CPython language reference?")
    assert "attempts" not in router.route(request).metadata


@pytest.mark.parametrize("how", ["route", "aroute"])
@pytest.mark.parametrize("primary", VENDORS)
def test_policy_failure_falls_back(
    router: Router, emulator: Emulator, primary: str, how: str
) -> None:
    """A grounding-policy failure moves on to the next vendor, which is judged by it too."""
    emulator.clear_requests()
    policy = {"min_citations": 1000}
    error = _outcome(router, how, _request(primary, "delay:0", grounding_policy=policy))
    assert isinstance(error, GroundingRequiredFailedError)
    assert error.reason == "policy"
    assert error.fallback_attempts is not None
    assert [(a["vendor"], a["reason"]) for a in error.fallback_attempts] == [
        (primary, "policy"),
        (NEXT[primary], "policy"),
    ]
    assert _apis(emulator) == [primary, NEXT[primary]]


@pytest.mark.parametrize("primary", VENDORS)
def test_no_citations_failure_falls_back(router: Router, emulator: Emulator, primary: str) -> None:
    """A REQUIRED answer that searched but cited nothing moves on to the next vendor."""
    emulator.clear_requests()
    outcome = _outcome(router, "route", _request(primary, f"no_citations@{primary}"))
    assert isinstance(outcome, LLMResponse)
    assert outcome.vendor == NEXT[primary]
    (failed, _) = outcome.metadata["attempts"]
    assert failed["reason"] == _expected_reason(primary, "no_citations")
    assert failed["outcome"] == "failed"
