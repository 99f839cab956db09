"""StreamAccumulator folds events, or a provider's raw chunks, into the final state."""

from __future__ import annotations

import pytest

from router import extract
from router.citations import make_citation
from router.errors import RequestValidationError, ResponseParseError
from router.streaming import (
    CitationDelta,
    Completed,
    SearchStarted,
    StreamAccumulator,
    TextDelta,
)
from router.types import Citation, LLMResponse
from support.recorded import load_events, recorded_files


def _citation(url: str, rank: int, *, cited: bool) -> Citation:
    citation = make_citation(provider="vertex", url=url, rank=rank, cited=cited)
    assert citation is not None
    return citation


def test_events_fold_into_text_citations_and_searches() -> None:
    """Text joins, the latest citation per source wins (in rank order), searches count."""
    accumulator = StreamAccumulator()
    accumulator.extend(
        [
            SearchStarted(("capital of France",)),
            TextDelta("Paris "),
            CitationDelta(_citation("https://b.example/x", 2, cited=False)),
            CitationDelta(_citation("https://a.example/x", 1, cited=False)),
            TextDelta("is the capital."),
            CitationDelta(_citation("https://b.example/x", 2, cited=True)),
            SearchStarted(("capital of France", "Paris")),
        ]
    )
    assert accumulator.text == "Paris is the capital."
    assert [(c["url"], c["cited"]) for c in accumulator.citations] == [
        ("https://a.example/x", False),
        ("https://b.example/x", True),
    ]
    assert accumulator.web_search_queries == ["capital of France", "Paris"]
    assert accumulator.search_calls == 2
    assert not accumulator.completed


def test_completed_gives_the_result() -> None:
    """After Completed, result() is that response."""
    response = LLMResponse(vendor="openai", model="gpt-5", content="Paris.")
    accumulator = StreamAccumulator()
    accumulator.add(TextDelta("Paris."))
    accumulator.add(Completed(response))
    assert accumulator.completed
    assert accumulator.result() is response


def test_events_without_completed_have_no_result() -> None:
    """Folded events that never completed give no response, and say what was folded."""
    accumulator = StreamAccumulator()
    accumulator.add(TextDelta("Par"))
    with pytest.raises(ResponseParseError, match="3 characters"):
        accumulator.result()


def test_raw_chunks_need_a_vendor() -> None:
    """Raw provider chunks cannot be read without knowing whose they are."""
    with pytest.raises(RequestValidationError, match="vendor"):
        StreamAccumulator().add({"candidates": []})


def test_raw_chunks_fold_into_what_extract_gives() -> None:
    """Raw chunks go through the provider's reader: the result is extract()'s for them."""
    (path,) = recorded_files("pydantic-ai/vertex_gemini25flash_stream_web_domain.sse.txt")
    chunks = load_events(path)
    accumulator = StreamAccumulator("vertex")
    for chunk in chunks:
        accumulator.add(chunk)
    assert accumulator.completed
    result = accumulator.result()
    expected = extract("vertex", chunks)
    assert result == expected
    assert accumulator.text == result.content
    assert accumulator.citations == result.citations
