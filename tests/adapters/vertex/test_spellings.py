"""The same reply gives the same result whatever its form: SDK object, REST dict, snake_case."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adapters.vertex.adapter import _extract_vertex_citations, extract_vertex_grounding
from adapters.vertex.citations import read_vertex_reply
from support.recorded import load_final_body
from support.vertex import GENERATE_CONTENT_FILES

IDS = [path.name for path in GENERATE_CONTENT_FILES]
_CAPITAL = re.compile(r"(?<!^)([A-Z])")


def _snake_case(value: Any) -> Any:
    """Every key of a JSON value in snake_case, as proto and SDK dumps spell them."""
    if isinstance(value, dict):
        return {_CAPITAL.sub(r"_\1", key).lower(): _snake_case(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_snake_case(item) for item in value]
    return value


def _sdk_response(body: dict[str, Any]) -> types.GenerateContentResponse:
    """The SDK's own parse of a stored body (the path its client takes, sdk-notes 2.3)."""
    return types.GenerateContentResponse._from_response(response=body, kwargs={})


@pytest.mark.parametrize("path", GENERATE_CONTENT_FILES, ids=IDS)
def test_sdk_object_and_dict_give_the_same_reply(path: Path) -> None:
    """An SDK GenerateContentResponse maps exactly like the REST body it was parsed from."""
    body = load_final_body(path)
    assert read_vertex_reply(_sdk_response(body)) == read_vertex_reply(body)


@pytest.mark.parametrize("path", GENERATE_CONTENT_FILES, ids=IDS)
def test_snake_case_and_camel_case_give_the_same_reply(path: Path) -> None:
    """A snake_case version of a body maps exactly like its camelCase original."""
    body = load_final_body(path)
    assert read_vertex_reply(_snake_case(body)) == read_vertex_reply(body)


@pytest.mark.parametrize("path", GENERATE_CONTENT_FILES, ids=IDS)
def test_sdk_snake_dump_gives_the_same_citations(path: Path) -> None:
    """The SDK's own snake_case dump gives the same citations and grounding as the body."""
    body = load_final_body(path)
    dumped = _sdk_response(body).model_dump(mode="json", exclude_none=True)
    assert _extract_vertex_citations(dumped) == _extract_vertex_citations(body)
    assert extract_vertex_grounding(dumped) == extract_vertex_grounding(body)


def test_a_camel_case_body_is_read_without_a_copy() -> None:
    """A REST body is used as it is: the citation's raw is equal to the chunk, not rebuilt."""
    body = load_final_body(GENERATE_CONTENT_FILES[0])
    (first, *_) = _extract_vertex_citations(body)
    raw = {k: v for k, v in first["raw"].items() if k not in ("redirect", "redirect_only")}
    assert raw == body["candidates"][0]["groundingMetadata"]["groundingChunks"][0]


@pytest.mark.parametrize("not_a_reply", [None, 42, "text", [], object(), {"candidates": "x"}])
def test_anything_that_is_not_a_reply_gives_nothing(not_a_reply: object) -> None:
    """Values that are not replies give no citations and no grounding, and do not raise."""
    assert _extract_vertex_citations(not_a_reply) == []
    assert extract_vertex_grounding(not_a_reply).grounded_effective is False
