"""LLMRequest validation and the response types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router import LLMRequest, LLMResponse, Message, RequestValidationError

BAD_REQUESTS = json.loads((Path(__file__).parents[1] / "data" / "bad_requests.json").read_text())

VALID = {"vendor": "openai", "model": "gpt-5", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("row", BAD_REQUESTS, ids=[row["id"] for row in BAD_REQUESTS])
def test_bad_request_names_field_and_problem(row: dict[str, Any]) -> None:
    """Every malformed request raises RequestValidationError naming the field and the problem."""
    with pytest.raises(RequestValidationError) as caught:
        LLMRequest.model_validate(row["request"])
    assert row["fragment"] in str(caught.value)
    assert caught.value.field == row["field"]


def test_bad_request_table_is_large_enough() -> None:
    """The table covers at least fifteen distinct mistakes."""
    assert len({row["id"] for row in BAD_REQUESTS}) >= 15


def test_constructor_raises_the_same_error() -> None:
    """Building with keywords reports errors the same way as model_validate."""
    with pytest.raises(RequestValidationError, match="vendor: unknown vendor 'bedrock'"):
        LLMRequest(vendor="bedrock", model="m", messages=[])  # type: ignore[arg-type]


def test_request_error_keeps_request_id() -> None:
    """The error keeps the request_id so a batch row can be matched to its input."""
    with pytest.raises(RequestValidationError, match="messages") as caught:
        LLMRequest.model_validate({**VALID, "messages": [], "request_id": "r-7"})
    assert caught.value.request_id == "r-7"
    assert caught.value.to_dict()["field"] == "messages"


def test_several_problems_are_all_reported() -> None:
    """One message lists every invalid field, separated by semicolons."""
    with pytest.raises(RequestValidationError) as caught:
        LLMRequest.model_validate({"vendor": "x", "messages": []})
    message = str(caught.value)
    assert "vendor:" in message
    assert "model: is required" in message
    assert "messages:" in message


def test_json_schema_implies_json_mode() -> None:
    """A request with a schema is a JSON request even without json_mode."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    request = LLMRequest.model_validate({**VALID, "json_schema": schema})
    assert request.json_mode is True
    assert request.wants_json


def test_vendor_and_mode_are_case_insensitive() -> None:
    """'OpenAI' and 'required' are accepted and normalised."""
    request = LLMRequest.model_validate(
        {**VALID, "vendor": "OpenAI", "grounded": True, "grounding_mode": "required"}
    )
    assert request.vendor == "openai"
    assert request.grounding_mode == "REQUIRED"
    assert request.requires_grounding


def test_country_is_upper_cased() -> None:
    """user_location.country is stored as upper-case ISO-2."""
    request = LLMRequest.model_validate({**VALID, "user_location": {"country": "de"}})
    assert request.user_location is not None
    assert request.user_location.country == "DE"


def test_model_instance_round_trips() -> None:
    """A request dumped to JSON validates back to an equal request."""
    request = LLMRequest.model_validate({**VALID, "grounded": True, "request_id": "a"})
    assert LLMRequest.model_validate_json(request.model_dump_json()) == request


def test_response_serialises_citations_to_json() -> None:
    """LLMResponse, citations included, survives a JSON round trip."""
    citation = {
        "provider": "openai",
        "url": "https://example.com/a",
        "source_domain": "example.com",
        "title": "A",
        "snippet": None,
        "source_type": "web",
        "rank": 1,
        "raw": {"type": "url_citation"},
        "spans": [{"start": 0, "end": 3, "text": "abc"}],
        "cited": True,
        "cited_text": "abc quoted",
        "location": {"type": "url_citation", "start_index": 0, "end_index": 3},
    }
    response = LLMResponse(
        vendor="openai",
        model="gpt-5",
        content="abc",
        citations=[citation],  # type: ignore[list-item]
        metadata={"citations": [citation], "grounded_effective": True},
    )
    again = LLMResponse.model_validate_json(response.model_dump_json())
    assert again.citations == [citation]
    assert again.metadata["citations"] == [citation]


def test_constructor_with_schema_sets_json_mode_without_warnings() -> None:
    """Keyword construction with a schema implies JSON mode (and warns about nothing)."""
    request = LLMRequest(
        vendor="openai",
        model="m",
        messages=[Message(role="user", content="x")],
        json_schema={"type": "object"},
    )
    assert request.json_mode is True


class _Unreadable(dict[str, Any]):
    """A caller-built mapping whose methods raise."""

    def items(self) -> Any:
        raise RuntimeError("broken mapping")

    def __iter__(self) -> Any:
        raise RuntimeError("broken mapping")


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"n": value}
    return value


@pytest.mark.parametrize(
    ("metadata", "fragment"),
    [
        ({"tags": {"a", "b"}}, "metadata.tags is a set"),
        ({"when": object()}, "metadata.when is a object"),
        ({"x": float("nan")}, "metadata.x is nan"),
        (_deep(33), "nested deeper than 32 levels"),
        ({"inner": _Unreadable(a=1)}, "could not be read (RuntimeError)"),
    ],
    ids=["set", "object", "nan", "too-deep", "unreadable"],
)
def test_metadata_must_be_json(metadata: dict[Any, Any], fragment: str) -> None:
    """Metadata the response could not write as JSON is refused when the request is made."""
    with pytest.raises(RequestValidationError) as caught:
        LLMRequest.model_validate({**VALID, "metadata": metadata})
    assert caught.value.field == "metadata"
    assert fragment in str(caught.value)


def test_json_metadata_within_the_depth_is_kept() -> None:
    """Tags nested 32 levels deep, with every JSON type, pass unchanged."""
    metadata = {"deep": _deep(31), "all": [1, 2.5, "s", True, None, {"k": []}]}
    assert LLMRequest.model_validate({**VALID, "metadata": metadata}).metadata == metadata


def test_caller_mapping_whose_methods_raise_is_a_request_error() -> None:
    """A request given as a mapping that cannot be read is a RequestValidationError."""
    with pytest.raises(RequestValidationError, match="could not be read"):
        LLMRequest.model_validate(_Unreadable(VALID))


def test_an_assembled_response_is_the_one_model_construct_makes() -> None:
    """``LLMResponse.assembled`` gives what ``model_construct`` gives: the same fields in the same
    order, the same fields set, the same dump; values naming other fields go to model_construct."""
    from router.types import LLMResponse, Usage

    values = {
        name: getattr(
            LLMResponse(vendor="openai", model="m", content="c", usage=Usage(input_tokens=3)), name
        )
        for name in LLMResponse.model_fields
        if name not in ("schema_version", "grounding")
    }
    values["metadata"] = {"citations": [], "k": ["v"]}
    fast, slow = LLMResponse.assembled(values), LLMResponse.model_construct(**values)
    assert fast == slow
    assert list(fast.__dict__) == list(slow.__dict__)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()
    assert repr(fast) == repr(slow)

    partial = {"vendor": "openai", "model": "m", "content": "c"}
    assert LLMResponse.assembled(partial).model_fields_set == {"vendor", "model", "content"}
    assert LLMResponse.assembled(partial).usage == Usage()
