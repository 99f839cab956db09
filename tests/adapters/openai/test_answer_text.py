"""The answer text without citation tokens, and annotation offsets mapped into it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.openai_compatible.answer import AnswerText, strip_citation_tokens

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "openai_citation_tokens.json").read_text("utf-8")
)


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_content_and_spans(row: dict[str, Any]) -> None:
    """Tokens leave the content; each annotation's offsets land on the same text in it."""
    answer = AnswerText()
    parts = [answer.add(text) for text in row["parts"]]
    assert answer.content == row["content"]
    spans = [answer.span(parts[part], start, end) for part, start, end in row["offsets"]]
    expected = [
        None if s is None else {"start": s[0], "end": s[1], "text": s[2]} for s in row["spans"]
    ]
    assert spans == expected


def test_removed_ranges_are_reported() -> None:
    """strip_citation_tokens says which characters of the original it removed."""
    text = "A \ue200cite\ue202turn0search0\ue201 B"
    clean, removed = strip_citation_tokens(text)
    assert clean == "A B"
    assert removed == ((1, len(text) - 2),)


def test_text_without_tokens_is_returned_as_is() -> None:
    """Text without private-use markers is the same object, with nothing removed."""
    text = "plain answer"
    assert strip_citation_tokens(text) == (text, ())


def test_tokens_are_counted() -> None:
    """The answer counts the citation tokens it removed (stray markers are not tokens)."""
    answer = AnswerText()
    answer.add("A \ue200cite\ue202turn0search0\ue201. B \ue200cite\ue202turn0search1\ue201.")
    answer.add("C\ue202")
    assert answer.tokens_removed == 2
