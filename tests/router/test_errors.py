"""The error tree and its serialisation for batch reports."""

from __future__ import annotations

import json

import pytest

from router import (
    ConfigurationError,
    GroundingRequiredFailedError,
    GroundingValidationError,
    LLMResponse,
    ProviderError,
    ProviderRequestError,
    ProviderTransientError,
    RequestValidationError,
    ResponseParseError,
    RouterError,
)


@pytest.mark.parametrize(
    ("error_type", "parent"),
    [
        (RequestValidationError, RouterError),
        (ConfigurationError, RouterError),
        (ProviderError, RouterError),
        (ProviderTransientError, ProviderError),
        (ProviderRequestError, ProviderError),
        (ResponseParseError, RouterError),
        (GroundingValidationError, RouterError),
        (GroundingRequiredFailedError, GroundingValidationError),
    ],
)
def test_tree_shape(error_type: type[RouterError], parent: type[RouterError]) -> None:
    """Each error sits where DESIGN.md section 6 draws it."""
    assert issubclass(error_type, parent)


def test_transient_error_serialises_every_report_field() -> None:
    """A transient error's dict carries vendor, model, id, status, attempts and Retry-After."""
    error = ProviderTransientError(
        "rate limited",
        vendor="openai",
        model="gpt-5",
        request_id="r1",
        status_code=429,
        reason="rate_limited",
        provider_message="slow down",
        attempts=3,
        retry_after_s=2.0,
    )
    data = error.to_dict()
    assert data == {
        "type": "ProviderTransientError",
        "message": "rate limited",
        "reason": "rate_limited",
        "vendor": "openai",
        "model": "gpt-5",
        "request_id": "r1",
        "status_code": 429,
        "provider_message": "slow down",
        "attempts": 3,
        "retry_after_s": 2.0,
    }
    assert json.loads(json.dumps(data)) == data


def test_grounding_failure_summarises_the_response() -> None:
    """REQUIRED failures keep the response and report its grounding evidence."""
    response = LLMResponse(vendor="vertex", model="gemini-2.5-flash", content="x")
    error = GroundingRequiredFailedError(
        "Model did not invoke grounding tools",
        reason="not_invoked",
        response=response,
        vendor="vertex",
        model="gemini-2.5-flash",
        request_id="q",
    )
    data = error.to_dict()
    assert data["reason"] == "not_invoked"
    assert data["type"] == "GroundingRequiredFailedError"
    assert data["grounded_effective"] is False
    assert data["citation_count"] == 0
    assert error.response is response


def test_with_context_fills_only_missing_fields() -> None:
    """The router adds request context without overwriting what the adapter knew."""
    error = ConfigurationError("no key", setting="OPENAI_API_KEY", vendor="openai")
    error.with_context(vendor="vertex", model="m", request_id="r")
    assert (error.vendor, error.model, error.request_id) == ("openai", "m", "r")
    assert error.to_dict()["setting"] == "OPENAI_API_KEY"
