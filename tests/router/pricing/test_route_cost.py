"""Every routed response carries its cost: through the real SDKs, the emulator and replays."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.registry import PROVIDERS
from router import GroundingRequiredFailedError, LLMResponse, UnifiedLLMAdapter
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.emulated import MODELS, VENDORS, grounded_request
from support.recorded import RECORDED_DIR

M = 1e-6


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    with UnifiedLLMAdapter(emulated_settings(emulator)) as running:
        yield running


# Vendors whose package ships a price table: their costs are estimated from it.
PRICED = [vendor for vendor in VENDORS if PROVIDERS[vendor].price_file() is not None]  # type: ignore[index]


@pytest.mark.parametrize("vendor", PRICED)
def test_a_grounded_route_carries_its_estimated_cost(
    router: UnifiedLLMAdapter, vendor: str
) -> None:
    """The response's usage holds a cost: its tokens at the model's prices plus its searches."""
    response = router.route(grounded_request(vendor, "Who won the 2024 Tour de France?"))
    cost = response.usage.cost
    assert cost is not None
    assert (cost.priced_as, cost.estimated, cost.currency) == (MODELS[vendor], True, "USD")
    assert cost.tokens > 0
    assert cost.search_units > 0
    assert cost.total == pytest.approx(cost.tokens + cost.searches)


@pytest.mark.parametrize("vendor", ["perplexity", "openrouter"])
def test_a_cost_the_provider_reports_is_used_as_it_is(
    router: UnifiedLLMAdapter, vendor: str
) -> None:
    """Perplexity and OpenRouter state their cost in the reply: it is used, not estimated."""
    response = router.route(grounded_request(vendor, "Who won the 2024 Tour de France?"))
    cost = response.usage.cost
    assert cost is not None
    assert cost.estimated is False
    assert cost.total == response.usage.reported_cost
    assert cost.searches == response.usage.reported_search_cost


def test_an_unpriced_model_is_answered_without_a_cost(router: UnifiedLLMAdapter) -> None:
    """A model the tables do not list changes nothing but the cost, which is None."""
    request = grounded_request("openai", "What is the tallest building?", model="gpt-unlisted")
    response = router.route(request)
    assert response.content
    assert response.usage.cost is None


def test_grounded_json_on_vertex_prices_both_calls(router: UnifiedLLMAdapter) -> None:
    """The two-step call's cost is the sum of both calls' tokens and one grounded prompt."""
    response = router.route(
        grounded_request("vertex", "Which city hosted the 2012 Olympics?", json_mode=True)
    )
    assert response.metadata["two_step"] is True
    step1 = response.metadata["step1"]["usage"]
    usage, cost = response.usage, response.usage.cost
    assert cost is not None
    assert usage.input_tokens is not None
    assert usage.output_tokens is not None
    assert usage.input_tokens > step1["input_tokens"]
    expected = usage.input_tokens * 0.30 * M + usage.output_tokens * 2.50 * M
    assert cost.tokens == pytest.approx(expected)
    assert (cost.search_unit, cost.search_units) == ("grounded_prompt", 1)


def test_a_rejected_answer_keeps_its_cost(router: UnifiedLLMAdapter) -> None:
    """A REQUIRED failure keeps the response it rejected, and that answer's cost."""
    request = grounded_request(
        "openai", "Capital of France? [[emulator:fault=no_search]]", mode="REQUIRED"
    )
    with pytest.raises(GroundingRequiredFailedError) as caught:
        router.route(request)
    kept = caught.value.response
    assert isinstance(kept, LLMResponse)
    assert kept.usage.cost is not None
    assert (kept.usage.cost.search_units, kept.usage.cost.searches) == (0, 0.0)


@pytest.mark.parametrize(
    ("vendor", "file", "expected"),
    [
        (
            "openai",
            "pydantic-ai/openai_responses_news_3_citations.json",
            (115_886 - 92_160) * 1.25 * M + 92_160 * 0.125 * M + 1_720 * 10 * M + 6 * 0.010,
        ),
        (
            "vertex",
            "ruby_llm/vertex_gemini25flash_ruby_version_web_domain.json",
            (9 + 61) * 0.30 * M + (27 + 221) * 2.50 * M + 1 * 0.035,
        ),
    ],
    ids=["openai", "vertex"],
)
def test_a_replayed_recording_routes_to_its_hand_computed_cost(
    tmp_path: Path, vendor: str, file: str, expected: float
) -> None:
    """route() over a recorded body, replayed by the emulator, costs what its body says."""
    shutil.copy(RECORDED_DIR / file, tmp_path / Path(file).name)
    with (
        Emulator(replay=tmp_path) as replaying,
        UnifiedLLMAdapter(emulated_settings(replaying)) as router,
    ):
        response = router.route(grounded_request(vendor, "Anything"))
    assert response.usage.cost is not None
    assert response.usage.cost.total == pytest.approx(expected, rel=1e-9)
