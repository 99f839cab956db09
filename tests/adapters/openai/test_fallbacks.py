"""Which refused requests get one changed retry, and how the request changes."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.openai.fallbacks import PREVIEW_SEARCH, TOOL_CHOICE_DROPPED, fallback_for
from router.errors import ProviderRequestError

FORCED = {
    "model": "gpt-5",
    "tools": [{"type": "web_search", "user_location": {"type": "approximate", "country": "DE"}}],
    "tool_choice": "required",
}
UNFORCED = {key: value for key, value in FORCED.items() if key != "tool_choice"}


def rejected(message: str, status: int = 400) -> ProviderRequestError:
    return ProviderRequestError(
        f"OpenAI rejected the request (HTTP {status})",
        vendor="openai",
        status_code=status,
        reason="bad_request",
        provider_message=message,
    )


@pytest.mark.parametrize(
    "message",
    [
        "Tool choice 'required' is not supported with this model.",
        "'tool_choice' cannot force the hosted tool 'web_search' with gpt-5.",
        "Invalid value for 'tool_choice': hosted tools cannot be forced.",
    ],
)
def test_a_refusal_naming_tool_choice_drops_it(message: str) -> None:
    """A 400 naming tool_choice on a forced request: the retry has no tool_choice."""
    assert fallback_for(rejected(message), FORCED) == (TOOL_CHOICE_DROPPED, UNFORCED)


@pytest.mark.parametrize(
    "message",
    [
        "Hosted tool 'web_search' is not supported with gpt-4.1-nano.",
        "The model gpt-4o-2024-05-13 does not support web_search.",
        "web_search is unsupported for this deployment",
    ],
)
def test_a_refused_web_search_falls_back_to_the_preview_tool(message: str) -> None:
    """A 400 saying web_search is not supported: the retry uses web_search_preview."""
    change, params = fallback_for(rejected(message), UNFORCED) or ("", {})
    assert change == PREVIEW_SEARCH
    assert params["tools"] == [
        {"type": "web_search_preview", "user_location": {"type": "approximate", "country": "DE"}}
    ]
    assert UNFORCED["tools"][0]["type"] == "web_search"  # the given params are untouched


@pytest.mark.parametrize(
    ("message", "status", "params"),
    [
        ("Tool choice 'required' is not supported with this model.", 400, UNFORCED),
        ("Hosted tool 'web_search_preview' is not supported with o3.", 400, UNFORCED),
        ("Hosted tool 'web_search' is not supported with gpt-4.1-nano.", 400, {"model": "x"}),
        ("Invalid 'input': empty.", 400, FORCED),
        ("'tool_choice' is not supported", 404, FORCED),
    ],
    ids=["no-tool-choice-sent", "preview-refused", "no-search-tool", "other-400", "not-400"],
)
def test_other_refusals_stand(message: str, status: int, params: dict[str, Any]) -> None:
    """Anything else is not retried: the error stands."""
    assert fallback_for(rejected(message, status), params) is None
