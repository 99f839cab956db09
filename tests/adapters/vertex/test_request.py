"""What the adapter asks Vertex for: steps, contents and config of each call."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.sdk.http_clients import sdk_timeout_s
from adapters.vertex.adapter import _call
from adapters.vertex.request import (
    Step,
    build_config,
    build_contents,
    location_sentence,
    plan_steps,
)
from router.settings import RouterSettings
from router.types import LLMRequest, Message, UserLocation


def _request(**fields: Any) -> LLMRequest:
    base: dict[str, Any] = {
        "vendor": "vertex",
        "model": "gemini-2.5-flash",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Berlin?"},
            {"role": "assistant", "content": "Which day?"},
            {"role": "user", "content": "Today."},
        ],
    }
    return LLMRequest.model_validate({**base, **fields})


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


@pytest.mark.parametrize(
    ("fields", "steps"),
    [
        ({}, [("answer", False, False)]),
        ({"grounded": True}, [("answer", True, False)]),
        ({"json_mode": True}, [("answer", False, True)]),
        (
            {"grounded": True, "json_schema": SCHEMA},
            [("grounded_text", True, False), ("reshape", False, True)],
        ),
        (
            {"grounded": True, "json_mode": True},
            [("grounded_text", True, False), ("reshape", False, True)],
        ),
    ],
    ids=["plain", "grounded", "json", "grounded_schema", "grounded_json_mode"],
)
def test_plan(fields: dict[str, Any], steps: list[tuple[str, bool, bool]]) -> None:
    """Only grounded + JSON takes two calls: search without JSON, then JSON without tools."""
    assert plan_steps(_request(**fields)) == tuple(Step(*step) for step in steps)


def test_roles_and_system_instruction() -> None:
    """System messages go to system_instruction; user/assistant become user/model contents."""
    request = _request()
    (step,) = plan_steps(request)
    contents = build_contents(request, step)
    assert [(c["role"], c["parts"][0]["text"]) for c in contents] == [
        ("user", "Weather in Berlin?"),
        ("model", "Which day?"),
        ("user", "Today."),
    ]
    assert build_config(request, step, 5_000).system_instruction == "Be brief."


def test_grounded_call_has_the_search_tool_and_no_json() -> None:
    """A grounded call carries GoogleSearch and no JSON settings; one request, its timeout."""
    request = _request(grounded=True, temperature=0.3, max_output_tokens=300)
    (step,) = plan_steps(request)
    config = build_config(request, step, 7_000)
    assert config.tools is not None
    assert [tool.google_search is not None for tool in config.tools] == [True]
    assert (config.response_mime_type, config.response_json_schema) == (None, None)
    assert (config.temperature, config.max_output_tokens) == (0.3, 300)
    assert config.automatic_continuation is False
    assert config.http_options is not None
    assert config.http_options.timeout == 7_000


def test_reshape_call_has_json_settings_and_no_tools() -> None:
    """Step 2 has no tools, JSON output with the schema, temperature 0, step 1's answer."""
    request = _request(grounded=True, json_schema=SCHEMA, temperature=0.9)
    _, reshape = plan_steps(request)
    config = build_config(request, reshape, 5_000)
    assert config.tools is None
    assert config.response_mime_type == "application/json"
    assert config.response_json_schema == SCHEMA
    assert config.temperature == 0.0
    contents = build_contents(request, reshape, "Berlin is sunny, 21 °C.")
    assert [c["role"] for c in contents[-2:]] == ["model", "user"]
    assert contents[-2]["parts"] == [{"text": "Berlin is sunny, 21 °C."}]
    assert "JSON" in contents[-1]["parts"][0]["text"]
    assert "schema" in contents[-1]["parts"][0]["text"]


def test_json_without_grounding_is_one_call_with_json_settings() -> None:
    """Not grounded + JSON: one call, JSON settings, no tools."""
    request = _request(json_schema=SCHEMA)
    (step,) = plan_steps(request)
    config = build_config(request, step, 5_000)
    assert (config.tools, config.response_mime_type) == (None, "application/json")
    assert config.response_json_schema == SCHEMA


@pytest.mark.parametrize(
    ("location", "sentence"),
    [
        (
            {"city": "Berlin", "region": "BE", "country": "DE"},
            "The user is located in: Berlin, BE, DE.",
        ),
        ({"country": "fr"}, "The user is located in: FR."),
        (
            {"city": "Tokyo", "timezone": "Asia/Tokyo"},
            "The user is located in: Tokyo (time zone Asia/Tokyo).",
        ),
        ({"timezone": "UTC"}, "The user is located in: time zone UTC."),
        ({}, None),
    ],
    ids=["city_region_country", "country_only", "with_timezone", "timezone_only", "empty"],
)
def test_location_sentence(location: dict[str, str], sentence: str | None) -> None:
    """user_location becomes one short sentence (Google Search grounding has no field for it)."""
    assert location_sentence(UserLocation(**location)) == sentence


def test_location_goes_to_grounded_calls_only() -> None:
    """The location sentence is added to the system instruction of searching calls only."""
    request = _request(grounded=True, json_mode=True, user_location={"city": "Berlin"})
    search, reshape = plan_steps(request)
    assert build_config(request, search, 1).system_instruction == (
        "Be brief.\n\nThe user is located in: Berlin."
    )
    assert build_config(request, reshape, 1).system_instruction == "Be brief."


def test_calls_that_need_the_same_config_share_one() -> None:
    """Two calls asking for the same config get the same object, a JSON schema's too."""
    request = _request(grounded=True)
    (step,) = plan_steps(request)
    assert build_config(request, step, 5_000) is build_config(_request(grounded=True), step, 5_000)
    schema_request = _request(json_schema=SCHEMA)
    (json_step,) = plan_steps(schema_request)
    assert build_config(schema_request, json_step, 5_000) is build_config(
        _request(json_schema=json.loads(json.dumps(SCHEMA))), json_step, 5_000
    )


def test_a_shared_config_keeps_its_own_copy_of_the_schema() -> None:
    """Changing a schema dict after a call changes no shared config, and a different schema
    (even one only in key order) gets a config of its own."""
    schema = json.loads(json.dumps(SCHEMA))
    request = _request(json_schema=schema)
    (step,) = plan_steps(request)
    config = build_config(request, step, 5_000)
    schema["properties"]["city"]["type"] = "integer"
    assert config.response_json_schema == SCHEMA
    reordered = dict(reversed(list(SCHEMA.items())))
    other = build_config(_request(json_schema=reordered), step, 5_000)
    assert other is not config
    assert list(other.response_json_schema or {}) == list(reordered)


def test_a_long_system_instruction_gets_a_config_of_its_own() -> None:
    """A system instruction past the shared size is not kept in the cache."""
    request = _request(grounded=True)
    long = request.model_copy(
        update={"messages": [Message(role="system", content="x" * 5_000), *request.messages]}
    )
    (step,) = plan_steps(long)
    assert build_config(long, step) is not build_config(long, step)


def test_a_config_without_a_timeout_of_its_own_keeps_the_clients() -> None:
    """No timeout given: no http_options, so the client's timeout (the settings') applies."""
    request = _request(grounded=True)
    (step,) = plan_steps(request)
    assert build_config(request, step).http_options is None


@pytest.mark.parametrize(
    ("request_timeout_s", "config_timeout_ms"),
    [(None, None), (30.0, None), (5.0, round(sdk_timeout_s(5.0) * 1000))],
)
def test_only_a_requests_own_timeout_goes_into_its_config(
    request_timeout_s: float | None, config_timeout_ms: int | None
) -> None:
    """A call carries a timeout of its own only when the request's differs from the settings'."""
    request = _request(grounded=True, timeout_s=request_timeout_s)
    (step,) = plan_steps(request)
    config = _call(request, RouterSettings(timeout_s=30.0), step, None)["config"]
    shown = config.http_options.timeout if config.http_options is not None else None
    assert shown == config_timeout_ms
