"""The responses.create arguments built for router requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.openai.request import build_response_params, is_strict_compatible, schema_name
from router.types import LLMRequest

DATA = Path(__file__).parents[2] / "data"
PARAMS: list[dict[str, Any]] = json.loads((DATA / "openai_request_params.json").read_text("utf-8"))
STRICT: list[dict[str, Any]] = json.loads((DATA / "openai_strict_schemas.json").read_text("utf-8"))


@pytest.mark.parametrize("row", PARAMS, ids=[row["id"] for row in PARAMS])
def test_request_params(row: dict[str, Any]) -> None:
    """Each request maps to exactly these keyword arguments (model aside)."""
    request = LLMRequest.model_validate({"vendor": "openai", "model": "gpt-5", **row["request"]})
    force_search = row.get("force_search", False)
    expected = {"model": "gpt-5", **row["expected"]}
    assert build_response_params(request, force_search=force_search) == expected


@pytest.mark.parametrize("row", STRICT, ids=[row["id"] for row in STRICT])
def test_strict_compatibility(row: dict[str, Any]) -> None:
    """Strict mode only for schemas whose every object is closed and fully required."""
    assert is_strict_compatible(row["schema"]) is row["strict"]


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Match result", "Match_result"),
        ("  résumé/CV  ", "r_sum_CV"),
        ("x" * 80, "x" * 64),
        ("///", "response"),
        (None, "response"),
        (7, "response"),
    ],
)
def test_schema_name(title: object, name: str) -> None:
    """The format name is the schema title reduced to [A-Za-z0-9_-]{1,64}, else 'response'."""
    assert schema_name({"type": "object", "title": title}) == name


def test_params_do_not_share_the_callers_messages() -> None:
    """Building params twice gives equal, separate input lists."""
    request = LLMRequest.model_validate(
        {"vendor": "openai", "model": "gpt-5", "messages": [{"role": "user", "content": "Hi"}]}
    )
    first, second = build_response_params(request), build_response_params(request)
    assert first == second
    assert first["input"] is not second["input"]
