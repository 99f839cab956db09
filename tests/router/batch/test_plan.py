"""A batch file's plan: lines checked as the run checks them, calls per model, list-price cost."""

from __future__ import annotations

import json

import pytest

from router.batch.input import BatchItem
from router.batch.openai_batch import convert_line, looks_like_openai_batch
from router.batch.plan import call_estimate, plan_batch
from router.respond import load_prices
from router.types import LLMRequest


def openai_request(**extra: object) -> LLMRequest:
    """A request to gpt-5 whose prompt is 400 characters (100 estimated tokens)."""
    fields = {
        "vendor": "openai",
        "model": "gpt-5",
        "messages": [{"role": "user", "content": "x" * 400}],
        **extra,
    }
    return LLMRequest.model_validate(fields)


def test_estimate_prices_tokens_and_one_search_from_the_table() -> None:
    """gpt-5: 100 input tokens at 1.25/M, 500 output at 10/M, one search at 10 per 1,000."""
    estimate = call_estimate(openai_request(grounded=True, max_output_tokens=500), load_prices())
    assert (estimate.input_tokens, estimate.output_tokens, estimate.searches) == (100, 500, 1)
    assert estimate.currency == "USD"
    assert estimate.cost == pytest.approx((100 * 1.25 + 500 * 10.0) / 1e6 + 10.0 / 1000)


def test_ungrounded_request_pays_no_search_and_assumes_default_output() -> None:
    """Without grounding no search fee; without max_output_tokens the given default is used."""
    estimate = call_estimate(openai_request(), load_prices(), output_tokens=2000)
    assert estimate.searches == 0
    assert estimate.cost == pytest.approx((100 * 1.25 + 2000 * 10.0) / 1e6)


def test_unpriced_model_is_unknown_not_zero() -> None:
    """A model with no price has cost None and is counted as unpriced in the plan."""
    request = openai_request(model="no-such-model-anywhere")
    item = BatchItem(line=1, request_id="a", request=request)
    plan = plan_batch([item], load_prices())
    assert plan.unpriced == 1
    assert plan.totals == {}


def test_plan_checks_what_the_router_refuses_before_a_call() -> None:
    """A request its provider cannot take (a domain filter OpenAI lacks) is an invalid line."""
    request = openai_request(grounded=True, blocked_domains=["example.com"])
    plan = plan_batch([BatchItem(line=7, request_id="a", request=request)], load_prices())
    assert (plan.valid, plan.invalid) == (0, 1)
    assert plan.problems[0].startswith("line 7: ")


def test_openai_batch_line_becomes_a_grounded_openai_request() -> None:
    """custom_id, model, messages, temperature and the output limit carry over; grounded."""
    line = json.dumps(
        {
            "custom_id": "job-1",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": "gpt-4o",
                "messages": [
                    {"role": "developer", "content": "Be brief."},
                    {"role": "user", "content": "hi"},
                ],
                "temperature": 0.2,
                "max_tokens": 64,
            },
        }
    )
    request = LLMRequest.model_validate_json(convert_line(line))
    assert request.request_id == "job-1"
    assert (request.vendor, request.model, request.grounded) == ("openai", "gpt-4o", True)
    assert [m.role for m in request.messages] == ["system", "user"]
    assert (request.temperature, request.max_output_tokens) == (0.2, 64)


def test_responses_input_string_is_one_user_turn() -> None:
    """A /v1/responses body's string input is one user message."""
    line = json.dumps(
        {
            "custom_id": "r",
            "method": "POST",
            "url": "/v1/responses",
            "body": {"model": "gpt-5", "input": "What is new?"},
        }
    )
    request = LLMRequest.model_validate_json(convert_line(line))
    assert request.messages[0].content == "What is new?"


@pytest.mark.parametrize(
    "text", ['{"vendor": "openai"}', "not json", '{"custom_id": "x", "body": 3, "url": "/"}']
)
def test_other_lines_are_left_as_they_are(text: str) -> None:
    """A line not in OpenAI's Batch format is returned unchanged, to fail on its own."""
    assert convert_line(text) == text


def test_format_is_recognised_by_its_keys() -> None:
    """Three of custom_id, method, url and body make a line look like OpenAI Batch input."""
    assert looks_like_openai_batch({"custom_id": "a", "url": "/", "body": {}})
    assert not looks_like_openai_batch({"custom_id": "a", "vendor": "openai"})
