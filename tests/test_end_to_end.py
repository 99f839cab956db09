"""route()/aroute() end to end: the real SDK clients, the real adapters, the loopback emulator.

Faults come from directives in the prompt ([[emulator:fault=...]]), which the router passes
through untouched, exactly as a batch input file would carry them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from router import (
    GroundingRequiredFailedError,
    LLMResponse,
    ProviderRequestError,
    ProviderTransientError,
    RouterSettings,
    UnifiedLLMAdapter,
)
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.emulated import ANSWER_TIMEOUT_S
from support.logs import capture_logs
from support.sleeps import RecordedSleeps

VENDORS = ["openai", "vertex"]
MODELS = {"openai": "gpt-5", "vertex": "gemini-2.5-flash"}


def settings_for(emulator: Emulator, **overrides: Any) -> RouterSettings:
    return emulated_settings(emulator, timeout_s=ANSWER_TIMEOUT_S, **overrides)


@pytest.fixture
def sleeps() -> RecordedSleeps:
    return RecordedSleeps()


@pytest.fixture
def router(emulator: Emulator, sleeps: RecordedSleeps) -> Iterator[UnifiedLLMAdapter]:
    with UnifiedLLMAdapter(
        settings_for(emulator), sleep=sleeps, async_sleep=sleeps.asleep
    ) as built:
        yield built


def ask(vendor: str, question: str, *, required: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": MODELS[vendor],
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
        "grounding_mode": "REQUIRED" if required else "AUTO",
        "request_id": f"{vendor}-{abs(hash(question)) % 10_000}",
        **extra,
    }


def assert_valid_citations(response: LLMResponse) -> None:
    assert LLMResponse.model_validate(response.model_dump()) == response  # assembled valid
    assert response.citations
    for citation in response.citations:
        assert citation["source_domain"]
        assert citation["url"] is None or "utm_" not in citation["url"]
        for span in citation["spans"]:
            assert response.content[span["start"] : span["end"]] == span["text"]


@pytest.mark.parametrize("vendor", VENDORS)
def test_grounded_answer_carries_citations(vendor: str, router: UnifiedLLMAdapter) -> None:
    """A grounded question comes back with real extracted citations and search evidence."""
    response = router.route(ask(vendor, "What is the capital of France?", required=True))
    assert response.grounded_effective
    assert response.web_search_queries
    assert response.metadata["citations"] == response.citations
    assert {"wikipedia.org", "britannica.com"} <= {c["source_domain"] for c in response.citations}
    assert_valid_citations(response)


@pytest.mark.parametrize("vendor", VENDORS)
def test_auto_passes_an_answer_without_search(vendor: str, router: UnifiedLLMAdapter) -> None:
    """AUTO grounding accepts the answer of a model that chose not to search."""
    response = router.route(ask(vendor, "Capital of France? [[emulator:fault=no_search]]"))
    assert response.grounded_effective is False
    assert response.citations == []


@pytest.mark.parametrize("vendor", VENDORS)
def test_required_fails_not_invoked_without_search(vendor: str, router: UnifiedLLMAdapter) -> None:
    """REQUIRED raises not_invoked when the model did not search."""
    question = "Capital of France? [[emulator:fault=no_search]]"
    with pytest.raises(GroundingRequiredFailedError) as caught:
        router.route(ask(vendor, question, required=True))
    assert caught.value.reason == "not_invoked"
    assert caught.value.vendor == vendor
    assert caught.value.response is not None


@pytest.mark.parametrize("vendor", VENDORS)
def test_required_fails_no_citations(vendor: str, router: UnifiedLLMAdapter) -> None:
    """REQUIRED raises no_citations when the model searched but cited nothing."""
    question = "Capital of France? [[emulator:fault=no_citations]]"
    with pytest.raises(GroundingRequiredFailedError) as caught:
        router.route(ask(vendor, question, required=True))
    assert caught.value.reason == "no_citations"
    assert caught.value.response is not None
    assert caught.value.response.grounded_effective


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("fault", ["429:2*1", "500*2", "503*1"])
def test_transient_faults_are_retried_and_succeed(
    vendor: str, fault: str, router: UnifiedLLMAdapter, sleeps: RecordedSleeps
) -> None:
    """429 and 5xx faults are retried with backoff (Retry-After honoured) until success."""
    question = f"Tallest mountain in Alberta? [[emulator:fault={fault}]] {vendor}"
    response = router.route(ask(vendor, question, required=True))
    failures = int(fault.rsplit("*", 1)[1])
    assert response.attempts == failures + 1
    assert len(sleeps.waits) == failures
    if fault.startswith("429:2"):
        assert sleeps.waits == [2.0]
    assert_valid_citations(response)


@pytest.mark.parametrize("vendor", VENDORS)
def test_exhausted_retries_raise_transient_with_attempts(
    vendor: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """A fault on every attempt ends in ProviderTransientError after max_attempts calls."""
    emulator.clear_requests()
    with pytest.raises(ProviderTransientError) as caught:
        router.route(ask(vendor, f"Anything [[emulator:fault=503]] {vendor}"))
    assert caught.value.attempts == 3
    assert caught.value.status_code == 503
    assert len(emulator.requests) == 3


@pytest.mark.parametrize("vendor", VENDORS)
def test_bad_request_is_not_retried(
    vendor: str, router: UnifiedLLMAdapter, emulator: Emulator, sleeps: RecordedSleeps
) -> None:
    """A 400 is raised after exactly one request, with no backoff."""
    emulator.clear_requests()
    with pytest.raises(ProviderRequestError) as caught:
        router.route(ask(vendor, f"Anything [[emulator:fault=400]] {vendor}"))
    assert caught.value.status_code == 400
    assert len(emulator.requests) == 1
    assert sleeps.waits == []


@pytest.mark.parametrize("vendor", VENDORS)
async def test_aroute_under_200_concurrent_calls(vendor: str, emulator: Emulator) -> None:
    """Two hundred concurrent aroute calls each return the response of their own request."""
    requests = [
        ask(vendor, f"What is notable about town number {i}?", request_id=f"{vendor}-c{i}")
        for i in range(200)
    ]
    async with UnifiedLLMAdapter(settings_for(emulator)) as router:
        responses = await asyncio.gather(*(router.aroute(r) for r in requests))
    for request, response in zip(requests, responses, strict=True):
        assert response.request_id == request["request_id"]
        assert f"town number {request['request_id'].rsplit('c', 1)[1]}" in response.content.lower()
        assert response.grounded_effective


@pytest.mark.parametrize("vendor", VENDORS)
def test_library_is_quiet_without_debug_grounding(vendor: str, router: UnifiedLLMAdapter) -> None:
    """A successful route emits no debug events unless DEBUG_GROUNDING is on."""
    with capture_logs() as events:
        router.route(ask(vendor, "What is the capital of France?"))
    assert [e for e in events if e["log_level"] == "debug"] == []


@pytest.mark.parametrize(
    ("vendor", "origins"),
    [("openai", {"annotation"}), ("vertex", {"groundingChunks.web"})],
)
def test_debug_grounding_explains_every_citation(
    vendor: str, origins: set[str], emulator: Emulator
) -> None:
    """With DEBUG_GROUNDING each citation's origin and domain derivation are logged."""
    with (
        UnifiedLLMAdapter(settings_for(emulator, debug_grounding=True)) as router,
        capture_logs() as events,
    ):
        response = router.route(ask(vendor, "What is the capital of France?"))
    derived = [e for e in events if e["event"] == "citation_domain_derived"]
    assert {e["source_domain"] for e in derived} >= {c["source_domain"] for c in response.citations}
    assert origins <= {e["origin"] for e in derived}
    assert all(e["how"] for e in derived)
    assert any(e["event"] == f"{vendor}_citations_extracted" for e in events)
