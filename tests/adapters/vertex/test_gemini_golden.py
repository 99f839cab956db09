"""The recorded Gemini Developer API bodies read through the "gemini" row.

The Gemini API and Vertex AI send the same generateContent body, so the checked expectations of
tests/data/expected/vertex/ hold for the Gemini API bodies read as the Gemini API too; what the
row changes is the vendor its citations and warning name. The quirk that tells the two apart in
the recordings holds as well: no Gemini API body has ``web.domain`` (provider-quirks section 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.registry import provider
from adapters.vertex.apis import GEMINI
from adapters.vertex.citations import read_vertex_reply
from support.citations import citation_problems, golden_row
from support.recorded import is_normalized, load_final_body
from support.vertex import EXPECTED_DIR, GENERATE_CONTENT_FILES

# Vertex AI recordings are named vertex_*; every other generateContent body is the Gemini API's.
GEMINI_FILES: list[Path] = [
    path for path in GENERATE_CONTENT_FILES if not path.name.startswith("vertex_")
]
IDS = [path.name for path in GEMINI_FILES]


def test_the_gemini_row_is_served_by_this_package() -> None:
    """The "gemini" row's adapter is the google-genai package's, under the Gemini API's name."""
    row = provider("gemini")
    assert row.adapter_path.startswith("adapters.vertex.")
    assert row.new_adapter().vendor == GEMINI.vendor == "gemini"
    assert len(GEMINI_FILES) == 16


@pytest.mark.parametrize("path", GEMINI_FILES, ids=IDS)
def test_golden_citations_as_the_gemini_api(path: Path) -> None:
    """The citations are exactly the checked expectation, and each names the gemini vendor."""
    expected = json.loads((EXPECTED_DIR / f"{path.name}.json").read_text("utf-8"))
    reply = read_vertex_reply(load_final_body(path), api=GEMINI)
    assert [golden_row(c, is_normalized(path)) for c in reply.citations] == expected["citations"]
    for citation in reply.citations:
        assert citation["provider"] == "gemini"
        assert citation_problems(citation, reply.content, provider="gemini") == []


@pytest.mark.parametrize("path", GEMINI_FILES, ids=IDS)
def test_no_gemini_api_body_has_a_web_domain(path: Path) -> None:
    """The Gemini API never sends ``web.domain``: the source domain comes from the title."""
    body = load_final_body(path)
    for candidate in body["candidates"]:
        for chunk in candidate.get("groundingMetadata", {}).get("groundingChunks", []):
            assert "domain" not in chunk.get("web", {})


def test_the_warning_names_gemini() -> None:
    """A search with nothing cited warns with the Gemini label."""
    body = {
        "candidates": [
            {
                "content": {"parts": [{"text": "An answer."}]},
                "groundingMetadata": {"webSearchQueries": ["q"]},
            }
        ]
    }
    warning = read_vertex_reply(body, api=GEMINI).grounding.warning
    assert warning is not None
    assert warning.startswith("[CITATIONS] Gemini: 1 tool calls but 0 citations extracted.")
