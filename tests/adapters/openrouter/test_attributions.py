"""OpenRouter attributions: Chat Completions ``url_citation`` annotations, as OpenAI's."""

from __future__ import annotations

from typing import Any

from router import extract
from support.recorded import RECORDED_DIR, load_final_body

RECORDED = RECORDED_DIR / "pydantic-ai" / "openrouter_chat_completions_url_citation.normalized.json"


def _annotation(url: str, start: int, end: int, page: str) -> dict[str, Any]:
    fields = {"url": url, "title": "Page", "start_index": start, "end_index": end, "content": page}
    return {"type": "url_citation", "url_citation": fields}


def test_a_url_annotated_twice_gives_two_attributions_to_one_citation() -> None:
    """Two annotations of one URL at two places: one citation, an attribution at each place."""
    text = "Lima is the capital [1]. It lies on the coast [1]."
    body = {
        "id": "gen-1",
        "object": "chat.completion",
        "model": "openai/gpt-4o",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": text,
                    "annotations": [
                        _annotation("https://example.pe/lima", 20, 23, "Lima page"),
                        _annotation("https://www.example.pe/lima?utm_source=x", 46, 49, "Coast"),
                    ],
                },
            }
        ],
    }
    response = extract("openrouter", body)
    assert [c["url"] for c in response.citations] == ["https://example.pe/lima"]
    assert [(a["start"], a["end"], a["text"], a["citation"]) for a in response.attributions] == [
        (20, 23, "[1]", 0),
        (46, 49, "[1]", 0),
    ]
    assert [a["location"] for a in response.attributions] == [
        {"type": "url_citation", "start_index": 20, "end_index": 23},
        {"type": "url_citation", "start_index": 46, "end_index": 49},
    ]


def test_annotations_at_offset_zero_place_nothing() -> None:
    """The recorded web-plugin reply sets both offsets to 0: citations, but no attribution."""
    response = extract("openrouter", load_final_body(RECORDED))
    assert len(response.citations) == 5
    assert all(c["cited"] for c in response.citations)
    assert response.attributions == []
