"""Gemini/Vertex attributions: one per grounding support x chunk index, checked by hand."""

from __future__ import annotations

from typing import Any

from router import extract
from support.recorded import RECORDED_DIR, load_final_body

STOCK_FEB_06 = RECORDED_DIR / "gemini-cookbook" / "gemini_rest_google_stock_2025-02-06.json"
STOCK_FEB_12 = RECORDED_DIR / "gemini-cookbook" / "gemini_rest_google_stock_2025-02-12.json"


def test_a_support_naming_three_chunks_gives_three_attributions_with_their_scores() -> None:
    """Each chunk index of a support is its own attribution, with its confidenceScores entry."""
    response = extract("gemini", load_final_body(STOCK_FEB_06))
    assert [c["title"] for c in response.citations] == [
        "yahoo.com",
        "tradingview.com",
        "angelone.in",
    ]
    rows = [
        (a["start"], a["end"], a["citation"], a["location"], a["confidence"])
        for a in response.attributions
    ]

    def chunk(index: int) -> dict[str, Any]:
        return {"type": "grounding_chunk", "chunk_index": index}

    assert rows == [
        (160, 177, 0, chunk(0), 0.63467747),
        (160, 177, 1, chunk(1), 0.6486053),
        (160, 177, 2, chunk(2), 0.65795654),
        (390, 444, 0, chunk(0), 0.65081346),
        (446, 463, 0, chunk(0), 0.63467747),
        (446, 463, 1, chunk(1), 0.6486053),
        (446, 463, 2, chunk(2), 0.65795654),
    ]
    assert response.attributions[3]["text"] == (
        "71. There is some discrepancy between reported prices."
    )
    assert response.attributions[0]["text"] == "* **Alphabet Inc."


def test_one_support_per_chunk_keeps_its_own_score() -> None:
    """Two supports, one chunk each: the claims, chunks and scores of the body."""
    response = extract("gemini", load_final_body(STOCK_FEB_12))
    assert [(a["text"], a["citation"], a["confidence"]) for a in response.attributions] == [
        ("*   **GOOG (Alphabet Inc Class C):** $187.07", 0, 0.9517465),
        ("*   **GOOGL (Alphabet Inc Class A):** $185.37", 1, 0.96076244),
    ]
    assert [a["start"] for a in response.attributions] == [72, 117]


def _body(text: str, chunks: list[str], supports: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "groundingMetadata": {
                    "webSearchQueries": ["q"],
                    "groundingChunks": [
                        {"web": {"uri": uri, "title": f"title {n}"}} for n, uri in enumerate(chunks)
                    ],
                    "groundingSupports": supports,
                },
            }
        ]
    }


def _support(text: str, answer: str, chunks: list[int], scores: list[Any]) -> dict[str, Any]:
    before = answer[: answer.index(text)]
    start = len(before.encode("utf-8"))
    end = start + len(text.encode("utf-8"))
    segment = {"startIndex": start, "endIndex": end, "text": text}
    return {"segment": segment, "groundingChunkIndices": chunks, "confidenceScores": scores}


def test_byte_offsets_become_character_offsets_and_one_page_keeps_each_chunk() -> None:
    """Multi-byte text: offsets are characters; two chunks of one page keep their own indices."""
    answer = "Zürich est grand. Café crème à Genève."
    body = _body(
        answer,
        ["https://example.ch/a", "https://www.example.ch/a?utm_source=x", "https://other.ch/"],
        [
            _support("Zürich est grand.", answer, [0, 2], [0.5, 0.25]),
            _support("Café crème à Genève.", answer, [1], [True]),
        ],
    )
    response = extract("gemini", body)
    assert [c["url"] for c in response.citations] == ["https://example.ch/a", "https://other.ch"]
    assert [
        (a["start"], a["end"], a["text"], a["citation"], a["location"], a["confidence"])
        for a in response.attributions
    ] == [
        (0, 17, "Zürich est grand.", 0, {"type": "grounding_chunk", "chunk_index": 0}, 0.5),
        (0, 17, "Zürich est grand.", 1, {"type": "grounding_chunk", "chunk_index": 2}, 0.25),
        (18, 38, "Café crème à Genève.", 0, {"type": "grounding_chunk", "chunk_index": 1}, None),
    ]
    for each in response.attributions:
        assert response.content[each["start"] : each["end"]] == each["text"]
