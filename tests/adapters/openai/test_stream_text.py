"""A text part fed delta by delta delivers exactly the whole part with its tokens stripped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.openai_compatible.answer import AnswerText, strip_citation_tokens
from adapters.openai_compatible.stream_text import StreamedPart

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "openai_citation_tokens.json").read_text("utf-8")
)
PIECES = st.lists(
    st.sampled_from(
        ["Paris", " ", "\t", ".", "\ue200", "\ue201", "\ue202", "cite", "turn0search0", "é", "\n"]
    ),
    max_size=40,
)


def _fed(text: str, cuts: list[int]) -> tuple[StreamedPart, list[str]]:
    part = StreamedPart(0)
    delivered = []
    start = 0
    for cut in [*sorted({min(cut, len(text)) for cut in cuts}), len(text)]:
        delivered.append(part.add(text[start:cut]))
        start = cut
    delivered.append(part.close())
    return part, delivered


@given(pieces=PIECES, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_any_split_delivers_the_stripped_part(pieces: list[str], cuts: list[int]) -> None:
    """However the deltas cut tokens and the blanks before them, the stripped part comes out."""
    text = "".join(pieces)
    part, delivered = _fed(text, cuts)
    assert "".join(delivered) == strip_citation_tokens(text)[0]
    assert part.raw_text() == text


@given(pieces=PIECES, cuts=st.lists(st.integers(0, 200), max_size=12))
def test_what_is_delivered_is_never_taken_back(pieces: list[str], cuts: list[int]) -> None:
    """Every prefix delivered is a prefix of the final stripped text (nothing is revised)."""
    text = "".join(pieces)
    final = strip_citation_tokens(text)[0]
    part = StreamedPart(0)
    delivered = ""
    start = 0
    for cut in [*sorted({min(cut, len(text)) for cut in cuts}), len(text)]:
        delivered += part.add(text[start:cut])
        start = cut
        assert final.startswith(delivered)


def test_a_token_cut_across_deltas_is_held_until_it_closes() -> None:
    """An opened token waits, with the blank before it; then the text after it flows."""
    part = StreamedPart(0)
    assert part.add("Paris is the capital. \ue200cite\ue202tu") == "Paris is the capital."
    assert part.add("rn0search0\ue201 It") == " It"
    assert part.close() == ""


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_spans_match_the_final_mapping(row: dict[str, Any]) -> None:
    """Annotation offsets map to the spans the final mapping gives, part by part."""
    answer = AnswerText()
    indices = [answer.add(text) for text in row["parts"]]
    parts: list[StreamedPart] = []
    base = 0
    for text in row["parts"]:
        part = StreamedPart(base)
        for character in text:  # one character per delta: the hardest split
            part.add(character)
        part.close()
        parts.append(part)
        base += len(part.text())
    for part_index, start, end in row["offsets"]:
        expected = answer.span(indices[part_index], start, end)
        assert parts[part_index].span(start, end) == expected
