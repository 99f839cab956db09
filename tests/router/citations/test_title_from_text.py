"""title_from_text: the first line of a search result's text, when it reads as a title."""

from __future__ import annotations

import pytest

from router.citations.text import title_from_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ruby 3.4.0 Released\nWe are pleased to announce it.", "Ruby 3.4.0 Released"),
        ("# Weather in Paris\n\nSunny, 21 °C.", "Weather in Paris"),
        ("  Who won the 2026 Giro?  \nTadej ...", "Who won the 2026 Giro?"),
        ("Ruby 3.4 was released today.\nMore.", None),
        ("Prices, rates and fees,\nall in one place", None),
        ("Contents:\n1. Intro", None),
        ("Ruby 3.4.0 Released", None),
        ("Ruby 3.4.0 Released\n   ", None),
        ("2026-01-02 14:00\nMarkets closed higher.", None),
        (" ".join(["word"] * 21) + "\nbody", None),
        ("x" * 151 + "\nbody", None),
        ("Docs: https://example.com/docs · Code: https://github.com/x\nbody", None),
        ("Ti\x1btle\nbody", "Title"),
        (None, None),
    ],
    ids=[
        "first-line",
        "markdown-heading",
        "question",
        "sentence",
        "clause",
        "label",
        "one-line",
        "nothing-after",
        "no-letter",
        "too-many-words",
        "too-long",
        "links",
        "controls-removed",
        "not-text",
    ],
)
def test_title_from_text(text: object, expected: str | None) -> None:
    """The first line is a title only when more text follows and it reads as one."""
    assert title_from_text(text) == expected
