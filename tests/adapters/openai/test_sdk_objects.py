"""The SDK objects the openai client builds give exactly what their plain dicts give."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from adapters.openai.adapter import _extract_openai_citations, extract_openai_grounding
from adapters.openai_compatible.citations import read_openai_reply
from support.openai import OPENAI_FILES, sdk_object
from support.recorded import load_final_body

IDS = [path.name for path in OPENAI_FILES]


@pytest.mark.parametrize("path", OPENAI_FILES, ids=IDS)
def test_sdk_object_and_dict_extract_the_same(path: Path) -> None:
    """Citations (raw included), grounding and content agree between Response and dict."""
    body = load_final_body(path)
    response = sdk_object(body)
    assert type(response).__name__ in ("Response", "ChatCompletion")
    assert _extract_openai_citations(response) == _extract_openai_citations(body)
    assert extract_openai_grounding(response) == extract_openai_grounding(body)
    assert read_openai_reply(response).content == read_openai_reply(body).content


@pytest.mark.parametrize("path", OPENAI_FILES, ids=IDS)
def test_extraction_leaves_the_body_untouched(path: Path) -> None:
    """Extracting reads the body only: the caller's dict is the same afterwards."""
    body = load_final_body(path)
    before = copy.deepcopy(body)
    citations = _extract_openai_citations(body)
    for citation in citations:
        citation["raw"]["changed"] = True
    assert body == before


def test_sdk_annotation_objects_inside_a_dict_are_read() -> None:
    """A dict body whose annotations are SDK objects gives the same citations as plain dicts."""
    (path,) = [p for p in OPENAI_FILES if p.name.startswith("openai_responses_gpt4o_12")]
    body = load_final_body(path)
    response = sdk_object(body)
    mixed = copy.deepcopy(body)
    message = next(item for item in mixed["output"] if item["type"] == "message")
    sdk_message = next(item for item in response.output if item.type == "message")
    message["content"][0]["annotations"] = list(sdk_message.content[0].annotations)
    assert _extract_openai_citations(mixed) == _extract_openai_citations(body)
