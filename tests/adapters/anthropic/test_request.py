"""The Messages parameters of a request (pure): the SDK's tool version, plans, JSON, documents."""

from __future__ import annotations

import re
import typing
from typing import Any

import pytest

from adapters.anthropic.request import (
    DEFAULT_MAX_TOKENS,
    WEB_SEARCH_TOOL_TYPE,
    build_message_params,
    plan_steps,
)
from router.types import LLMRequest

SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}}


def _request(**fields: Any) -> LLMRequest:
    messages = fields.pop("messages", [{"role": "user", "content": "Hi?"}])
    return LLMRequest.model_validate(
        {"vendor": "anthropic", "model": "claude-sonnet-4-6", "messages": messages, **fields}
    )


def _web_search_versions() -> list[str]:
    from anthropic.types import ToolUnionParam

    found = []
    for member in typing.get_args(ToolUnionParam):
        hints = typing.get_type_hints(member, include_extras=True)
        for literal in typing.get_args(typing.get_args(hints.get("type", Any))[0]) or ():
            if isinstance(literal, str) and re.fullmatch(r"web_search_\d{8}", literal):
                found.append(literal)
    return sorted(found)


def test_the_tool_version_is_the_newest_the_sdk_names() -> None:
    """WEB_SEARCH_TOOL_TYPE is the latest web_search_YYYYMMDD of the SDK's ToolUnionParam."""
    versions = _web_search_versions()
    assert versions, "the SDK names no web search tool"
    assert versions[-1] == WEB_SEARCH_TOOL_TYPE


@pytest.mark.parametrize(
    ("fields", "steps"),
    [
        ({}, ["answer"]),
        ({"grounded": True}, ["answer"]),
        ({"json_schema": SCHEMA}, ["answer"]),
        ({"grounded": True, "json_schema": SCHEMA}, ["grounded_text", "reshape"]),
        ({"grounded": True, "json_mode": True}, ["grounded_text", "reshape"]),
        (
            {
                "json_mode": True,
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "Summarise."},
                            {"type": "document", "source": "A memo."},
                        ],
                    }
                ],
            },
            ["grounded_text", "reshape"],
        ),
    ],
)
def test_json_with_citations_takes_two_steps(fields: dict[str, Any], steps: list[str]) -> None:
    """Search or documents together with JSON: two calls; anything else one."""
    assert [step.name for step in plan_steps(_request(**fields))] == steps


def test_max_tokens_defaults_and_follows_the_request() -> None:
    """max_tokens is required by the API: the request's, or the default."""
    (step,) = plan_steps(_request())
    assert build_message_params(_request(), step, max_uses=None)["max_tokens"] == (
        DEFAULT_MAX_TOKENS
    )
    limited = _request(max_output_tokens=123)
    assert build_message_params(limited, step, max_uses=None)["max_tokens"] == 123


def test_temperature_is_not_sent() -> None:
    """The SDK's messages.create has no temperature: it never goes on the wire."""
    request = _request(temperature=0.3, grounded=True)
    (step,) = plan_steps(request)
    assert "temperature" not in build_message_params(request, step, max_uses=3)


def test_reshape_sends_the_answer_back_without_documents() -> None:
    """Step 2 repeats the conversation as text, then step 1's answer, then the JSON request."""
    request = _request(
        json_schema=SCHEMA,
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Summarise."},
                    {"type": "document", "source": "A memo."},
                ],
            }
        ],
    )
    _, reshape = plan_steps(request)
    params = build_message_params(request, reshape, max_uses=5, answer="It is short.")
    assert params["messages"][0] == {"role": "user", "content": "Summarise."}
    assert params["messages"][1] == {"role": "assistant", "content": "It is short."}
    assert "JSON" in params["messages"][2]["content"]
    assert "tools" not in params
    assert params["output_config"]["format"]["schema"] == SCHEMA
