"""A strong secret streamed a few characters at a time never reaches the caller.

:class:`router.streaming.redacting.SecretHold` holds back a tail that could start a secret's
run; the delivered text, joined, is the answer redacted whole, however it was cut into pieces,
and citation spans point into it.
"""

from __future__ import annotations

import pytest

from router.streaming.events import CitationDelta, TextDelta
from router.streaming.redacting import SecretHold
from router.text.echoes import redact_content
from router.text.redaction import REDACTED, register_secret
from router.types import Citation, Span
from support.citations import domain_citation
from support.secret_watch import SENTINEL_OPENAI_KEY, sentinel_findings


def citation(spans: list[Span]) -> Citation:
    return {**domain_citation("example.com"), "spans": spans}


ANSWER = f"Your key is {SENTINEL_OPENAI_KEY}, and Paris is the capital of France."


@pytest.fixture(autouse=True)
def _registered() -> None:
    register_secret(SENTINEL_OPENAI_KEY)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 200])
def test_pieces_of_any_size_join_into_the_redacted_answer(size: int) -> None:
    """Text cut into pieces of ``size`` characters comes out as the whole answer redacted."""
    hold = SecretHold()
    delivered = [hold.text(ANSWER[i : i + size]) for i in range(0, len(ANSWER), size)]
    delivered.append(hold.flush())
    assert "".join(delivered) == redact_content(ANSWER)[0]
    assert REDACTED in "".join(delivered)
    assert sentinel_findings(delivered) == []


def test_a_span_after_the_secret_moves_with_the_text() -> None:
    """A citation's span after a redacted key points at the same words in the delivered text."""
    hold = SecretHold()
    event = hold.event(TextDelta(ANSWER))
    assert isinstance(event, TextDelta)
    delivered = event.text + hold.flush()
    start = ANSWER.index("Paris")
    cited = citation(spans=[{"start": start, "end": start + 5, "text": "Paris"}])
    moved = hold.event(CitationDelta(cited))
    assert isinstance(moved, CitationDelta)
    (span,) = moved.citation["spans"]
    assert delivered[span["start"] : span["end"]] == "Paris"


def test_a_span_into_held_text_waits() -> None:
    """A span reaching into text still held back is left out of the citation for now."""
    hold = SecretHold()
    assert hold.text("Paris sk-SEN") == "Paris "
    cited = citation(spans=[{"start": 0, "end": 12, "text": "Paris sk-SEN"}])
    event = hold.event(CitationDelta(cited))
    assert isinstance(event, CitationDelta)
    assert event.citation["spans"] == []


def test_two_url_less_sources_of_one_domain_both_wait() -> None:
    """Sources without a URL are told apart as the citations are (domain and title): two of one
    domain whose spans reach into held text are both sent again, whole, once the text is."""
    hold = SecretHold()
    assert hold.text("Paris sk-SEN") == "Paris "
    span: Span = {"start": 0, "end": 12, "text": "Paris sk-SEN"}
    sources = [{**citation([span]), "url": None, "title": title} for title in ("Atlas", "Almanac")]
    for source in sources:
        assert hold.event(CitationDelta(source)) is not None
    hold.flush()
    resent = hold.flush_citations()
    assert [event.citation["title"] for event in resent if isinstance(event, CitationDelta)] == [
        "Atlas",
        "Almanac",
    ]
    assert all(
        isinstance(event, CitationDelta) and len(event.citation["spans"]) == 1 for event in resent
    )
