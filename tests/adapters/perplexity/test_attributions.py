"""Perplexity attributions: one per ``[n]`` marker, checked by hand against the bodies."""

from __future__ import annotations

import json
from typing import Any

from adapters.perplexity.reply import map_perplexity_reply
from router import extract
from router.types import LLMRequest
from support.recorded import RECORDED_DIR

REQUEST = LLMRequest(
    vendor="perplexity", model="sonar", messages=[{"role": "user", "content": "q"}]
)
BRAZIL = RECORDED_DIR / "prism" / "perplexity_sonar_citations_search_results.json"
BARE = RECORDED_DIR / "vercel-ai" / "perplexity_sonar_citations.json"


def _body(path: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return body


def test_each_marker_is_one_attribution_with_its_search_result_snippet() -> None:
    """Markers [1][3] after "clothing": two attributions, each with its result's snippet."""
    result = map_perplexity_reply(_body(BRAZIL), REQUEST)
    assert result.content[276:296] == "light clothing[1][3]"
    first, second = result.attributions[:2]
    assert (first["start"], first["end"], first["text"], first["citation"]) == (290, 293, "[1]", 0)
    assert (second["start"], second["end"], second["text"], second["citation"]) == (
        293,
        296,
        "[3]",
        2,
    )
    assert (first["cited_text"] or "").startswith("South Brazil weather in November 2025")
    assert (second["cited_text"] or "").startswith("The temperatures in Brazil in November")
    assert second["location"] == {"type": "search_result", "search_result_index": 2}
    assert {a["text"] for a in result.attributions} == {"[1]", "[3]", "[4]"}
    for each in result.attributions:
        assert result.content[each["start"] : each["end"]] == each["text"]


def test_bare_citation_urls_give_attributions_without_a_passage() -> None:
    """A reply with only ``citations[]``: markers are attributions with no cited text."""
    response = extract("perplexity", _body(BARE))
    assert [a["text"] for a in response.attributions[:4]] == ["[2]", "[3]", "[5]", "[7]"]
    assert [a["citation"] for a in response.attributions[:4]] == [1, 2, 4, 6]
    assert all(a["cited_text"] is None for a in response.attributions)


def test_one_url_listed_twice_keeps_each_position_and_snippet() -> None:
    """Two results of one URL merge into one citation; each marker keeps its own snippet."""
    body = {
        "choices": [{"message": {"role": "assistant", "content": "Alpha[1]. Beta[2]."}}],
        "search_results": [
            {"title": "Page", "url": "https://example.org/a", "snippet": "Passage one."},
            {"title": "Page", "url": "https://www.example.org/a", "snippet": "Passage two."},
        ],
    }
    response = extract("perplexity", body)
    assert len(response.citations) == 1
    assert response.citations[0]["cited_text"] == "Passage one."
    assert [
        (a["start"], a["end"], a["citation"], a["cited_text"], a["location"])
        for a in response.attributions
    ] == [
        (5, 8, 0, "Passage one.", {"type": "search_result", "search_result_index": 0}),
        (14, 17, 0, "Passage two.", {"type": "search_result", "search_result_index": 1}),
    ]
