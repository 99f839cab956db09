"""The buffer stream readers emit through: delivered text, spans within it, no repeats."""

from __future__ import annotations

from router.citations import make_citation
from router.streaming.events import CitationDelta, EventBuffer, SearchStarted, TextDelta
from router.types import Citation, Span


def _citation(spans: list[Span], *, title: str = "Example") -> Citation:
    citation = make_citation(
        provider="openai", url="https://example.com/a", title=title, spans=spans, cited=True
    )
    assert citation is not None
    return citation


def test_text_is_delivered_in_order_and_counted() -> None:
    """Each text piece is one TextDelta; the buffer counts and keeps the delivered text."""
    buffer = EventBuffer()
    buffer.text("Paris ")
    buffer.text("")
    buffer.text("is the capital.")
    assert buffer.take() == [TextDelta("Paris "), TextDelta("is the capital.")]
    assert buffer.delivered == len("Paris is the capital.")
    assert buffer.delivered_text() == "Paris is the capital."


def test_take_empties_the_buffer() -> None:
    """Events are handed over once; a chunk without events gives an empty sequence."""
    buffer = EventBuffer()
    buffer.search(("capital of France",))
    assert buffer.take() == [SearchStarted(("capital of France",))]
    assert list(buffer.take()) == []


def test_a_span_past_the_delivered_text_is_held_back() -> None:
    """A citation's span that ends after the delivered text is left out of its delta."""
    buffer = EventBuffer()
    buffer.text("Paris.")
    inside: Span = {"start": 0, "end": 6, "text": "Paris."}
    beyond: Span = {"start": 7, "end": 12, "text": "Lyon."}
    buffer.citation(_citation([inside, beyond]))
    (_, event) = buffer.take()
    assert isinstance(event, CitationDelta)
    assert event.citation["spans"] == [inside]
    assert buffer.spans_held_back == 1


def test_an_unchanged_citation_is_not_emitted_again() -> None:
    """The same state of one source's citation is emitted once; a change is emitted again."""
    buffer = EventBuffer()
    buffer.text("Paris.")
    buffer.citation(_citation([]))
    buffer.citation(_citation([]))
    buffer.citation(_citation([], title="Another title"))
    events = buffer.take()
    assert [event.citation["title"] for event in events if isinstance(event, CitationDelta)] == [
        "Example",
        "Another title",
    ]
