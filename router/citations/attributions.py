"""The places where an answer cites its sources (``LLMResponse.attributions``, DESIGN.md 10).

An adapter hands each source's marks to :class:`router.citations.build.CitationCollector` as it
adds the source: one :class:`Mark` per place in the answer that cites it, with the passage quoted
at that place. Sources of one page merge into one citation, but their marks never merge: each
keeps its own passage, location and confidence, and points at the citation its source merged
into. :func:`ordered_attributions` puts them in answer order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from router.citations.text import CITED_TEXT_LIMIT, sanitize_text
from router.types import Attribution, Location

__all__ = ["Mark", "attribution", "ordered_attributions"]


class Mark(NamedTuple):
    """One place where the answer cites a source: a span of ``content`` and what it quotes."""

    start: int
    end: int
    text: str
    cited_text: str | None = None
    location: Location | None = None
    confidence: float | None = None


def _confidence(value: object) -> float | None:
    """A provider's score as a float in [0, 1], or None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    score = float(value)
    return score if 0.0 <= score <= 1.0 else None


def attribution(mark: Mark, citation: int, location: Location | None) -> Attribution:
    """The attribution of ``mark`` to the citation at index ``citation`` of the response."""
    cited_text = mark.cited_text
    return {
        "start": mark.start,
        "end": mark.end,
        "text": mark.text,
        "citation": citation,
        "cited_text": (
            None if cited_text is None else sanitize_text(cited_text, limit=CITED_TEXT_LIMIT)
        ),
        "location": location,
        "confidence": _confidence(mark.confidence),
    }


def ordered_attributions(attributions: Iterable[Attribution]) -> list[Attribution]:
    """``attributions`` in answer order: by start, then end; ties keep the order given."""
    return sorted(attributions, key=lambda each: (each["start"], each["end"]))
