"""OpenAI attributions: one per ``url_citation`` annotation, checked by hand against the bodies."""

from __future__ import annotations

from collections import Counter

from router import extract
from support.recorded import RECORDED_DIR, load_final_body

DUPLICATES = RECORDED_DIR / "mirascope" / "openai_responses_gpt4o_12_citations_duplicates.json"
CHAT = RECORDED_DIR / "ruby_llm" / "openai_chat_gpt4o_mini_search_preview_url_citations.json"
DEV_TO = (
    "https://dev.to/hsbt/is-your-ruby-version-still-supported-a-maintainers-guide-to-rubys-"
    "release-cycle-799"
)


def test_each_annotation_of_a_url_cited_twice_is_its_own_attribution() -> None:
    """Two annotations of one URL: one citation, two attributions, each with its own offsets."""
    response = extract("openai", load_final_body(CHAT))
    assert [c["url"] for c in response.citations if c["cited"]] == [
        "https://www.ruby-lang.org/en/news/2025/10/07/ruby-3-4-7-released/",
        DEV_TO,
    ]
    assert [(a["start"], a["end"], a["citation"]) for a in response.attributions] == [
        (96, 198, 0),
        (293, 426, 1),
        (542, 675, 1),
    ]
    assert [a["location"] for a in response.attributions] == [
        {"type": "url_citation", "start_index": 96, "end_index": 198},
        {"type": "url_citation", "start_index": 293, "end_index": 426},
        {"type": "url_citation", "start_index": 542, "end_index": 675},
    ]
    assert response.attributions[2]["text"] == f"([dev.to]({DEV_TO}?utm_source=openai))"
    assert all(a["cited_text"] is None and a["confidence"] is None for a in response.attributions)


def test_twelve_annotations_over_six_urls_give_twelve_attributions_in_answer_order() -> None:
    """Each of six URLs cited twice: six citations, twelve attributions, sorted by offset."""
    response = extract("openai", load_final_body(DUPLICATES))
    attributions = response.attributions
    assert len(response.citations) == 6
    assert len(attributions) == 12
    assert [a["start"] for a in attributions] == sorted(a["start"] for a in attributions)
    assert (attributions[0]["start"], attributions[0]["end"]) == (296, 390)
    assert (attributions[6]["start"], attributions[6]["end"]) == (1832, 1926)
    first_url = response.citations[0]["url"]
    assert first_url == "https://www.investing.com/crypto/ethereum/historical-data"
    assert Counter(a["citation"] for a in attributions) == dict.fromkeys(range(6), 2)
    assert [a["citation"] for a in attributions[:6]] == [0, 1, 2, 3, 4, 5]


def test_every_attribution_covers_its_text() -> None:
    """``content[start:end]`` is each attribution's text, on both recorded shapes."""
    for path in (CHAT, DUPLICATES):
        response = extract("openai", load_final_body(path))
        assert response.attributions
        for each in response.attributions:
            assert response.content[each["start"] : each["end"]] == each["text"]
