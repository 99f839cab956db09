"""Anthropic attributions, turns and preamble, checked by hand against the bodies."""

from __future__ import annotations

from typing import Any

from router import extract
from support.recorded import RECORDED_DIR, load_final_body

NINE = RECORDED_DIR / "pydantic-ai" / "anthropic_web_search_9_citations.json"
THREE_SEARCHES = RECORDED_DIR / "mirascope" / "anthropic_sonnet4_three_searches.json"


def _document_citation(passage: str, start: int, end: int) -> dict[str, Any]:
    return {
        "type": "char_location",
        "cited_text": passage,
        "document_index": 0,
        "document_title": "Q3 report",
        "start_char_index": start,
        "end_char_index": end,
    }


def test_a_document_cited_twice_keeps_each_passage_on_its_own_sentence() -> None:
    """One citation keeps the first passage; each sentence's attribution keeps its own."""
    body = {
        "type": "message",
        "role": "assistant",
        "content": [
            {
                "type": "text",
                "text": "Revenue grew.",
                "citations": [_document_citation("Passage one.", 0, 12)],
            },
            {"type": "text", "text": " "},
            {
                "type": "text",
                "text": "Costs fell.",
                "citations": [_document_citation("Passage two.", 40, 52)],
            },
        ],
    }
    response = extract("anthropic", body)
    assert len(response.citations) == 1
    assert response.citations[0]["cited_text"] == "Passage one."
    assert response.citations[0]["source_domain"] == "document:Q3-report"
    assert [
        (a["start"], a["end"], a["text"], a["citation"], a["cited_text"])
        for a in response.attributions
    ] == [
        (0, 13, "Revenue grew.", 0, "Passage one."),
        (14, 25, "Costs fell.", 0, "Passage two."),
    ]
    second = response.attributions[1]["location"]
    assert second is not None
    assert (second["start_char_index"], second["end_char_index"]) == (40, 52)


def test_each_text_block_citation_is_one_attribution_with_its_passage() -> None:
    """The nine citations of the recording: their blocks, passages and result positions."""
    response = extract("anthropic", load_final_body(NINE))
    attributions = response.attributions
    assert len(attributions) == 9
    first = attributions[0]
    assert (first["start"], first["end"], first["text"]) == (
        133,
        167,
        "Temperature: 66°F with clear skies",
    )
    assert response.citations[first["citation"]]["url"] == (
        "https://www.accuweather.com/en/us/san-francisco/94103/weather-forecast/347629"
    )
    assert first["cited_text"] is not None
    assert first["cited_text"].startswith("San Francisco, CA Weather Today WinterCast")
    fourth = attributions[3]
    assert (fourth["start"], fourth["end"]) == (292, 327)
    assert fourth["text"] == "High: 78°F with partly cloudy skies"
    assert response.citations[fourth["citation"]]["url"] == (
        "https://www.wunderground.com/weather/us/ca/san-francisco"
    )
    assert fourth["location"] is not None
    assert fourth["location"]["search_result_index"] == 7
    for each in attributions:
        assert response.content[each["start"] : each["end"]] == each["text"]


def test_one_block_citing_one_page_twice_keeps_both_passages() -> None:
    """A page cited at four places keeps each passage; the citation keeps its first."""
    response = extract("anthropic", load_final_body(THREE_SEARCHES))
    pair = [a for a in response.attributions if (a["start"], a["end"]) == (741, 834)]
    assert [a["citation"] for a in pair] == [11, 11]
    passages = [a["cited_text"] or "" for a in pair]
    assert passages[0].startswith("Bitcoin (BTC) price has closed 2025 trading below")
    assert passages[1].startswith("After closing 2025 in a choppy consolidation")
    of_page = [a for a in response.attributions if a["citation"] == 11]
    assert [(a["start"], a["end"]) for a in of_page] == [
        (488, 582),
        (741, 834),
        (741, 834),
        (844, 936),
    ]
    assert len({a["cited_text"] for a in of_page}) == 3  # the last repeats the second
    assert response.citations[11]["cited_text"] == of_page[0]["cited_text"]


def test_turns_around_searches_are_kept_apart_and_the_preamble_is_marked() -> None:
    """Text before and after a search is set apart by a blank line; the preamble is named."""
    response = extract("anthropic", load_final_body(THREE_SEARCHES))
    preamble = (
        "Let me search more specifically for Bitcoin's price on January 1, 2026:\n\n"
        "Let me try another search approach:\n\n"
    )
    assert response.content.startswith(preamble + "Based on the search results")
    assert response.metadata["preamble"] == preamble
    assert response.metadata["answer_start"] == len(preamble)


def test_blocks_keep_their_own_whitespace() -> None:
    """Text blocks of one turn are joined as they are; a turn starting with a space gets none."""
    body = {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
            {"type": "text", "text": " Lima is the capital"},
            {"type": "text", "text": " of Peru."},
        ],
    }
    response = extract("anthropic", body)
    assert response.content == "Checking. Lima is the capital of Peru."
    assert response.metadata["preamble"] == "Checking."
    assert response.content[response.metadata["answer_start"] :] == " Lima is the capital of Peru."
