"""Every recorded stream, read by every vendor's reader that completes it (DESIGN.md section 9).

What holds for each: the TextDelta events make the content; the latest CitationDelta of each
source is the final citation (urls, domains, titles, ranks, spans, cited); SearchStarted events
are the tool calls and their queries; no span points past the text delivered when it was sent;
the result equals ``extract`` on the final body the stream adds up to; and the outcome matches
the golden row of ``tests/data/recorded_streams.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router import extract
from router.types import Citation
from support.recorded import RECORDED_DIR, load_events, stream_final_body
from support.streams import UNREAD, name_of, read_stream, stream_cases, unread_streams

CASES = [pytest.param(path, vendor, id=f"{vendor}:{path.name}") for path, vendor in stream_cases()]
GOLDEN: dict[str, Any] = json.loads(
    (RECORDED_DIR.parent / "recorded_streams.json").read_text(encoding="utf-8")
)
CITATION_FIELDS = ("url", "source_domain", "title", "rank", "spans", "cited")


def _fields(citations: list[Citation]) -> list[dict[str, Any]]:
    return [{key: citation[key] for key in CITATION_FIELDS} for citation in citations]


def test_streams_are_read() -> None:
    """The recorded OpenAI and Gemini/Vertex streams are found and read (the suite is not empty)."""
    vendors = {vendor for _, vendor in stream_cases()}
    assert {"openai", "vertex"} <= vendors
    assert len(CASES) >= 9


def test_every_stream_is_read_or_said_why_not() -> None:
    """A recorded stream that no reader completes is listed, with its reason, as unread."""
    assert sorted(name_of(path) for path in unread_streams()) == sorted(UNREAD)


@pytest.mark.parametrize(("path", "vendor"), CASES)
def test_stream_completes_without_skipped_chunks(path: Path, vendor: str) -> None:
    """The reader reaches the last event and reads every chunk."""
    read = read_stream(vendor, load_events(path))
    assert read.complete
    assert not [w for w in read.result.warnings if "could not be read" in w]


@pytest.mark.parametrize(("path", "vendor"), CASES)
def test_text_deltas_make_the_content(path: Path, vendor: str) -> None:
    """The TextDelta events, joined, are the result's content."""
    read = read_stream(vendor, load_events(path))
    assert read.text == read.result.content
    assert read.text


@pytest.mark.parametrize(("path", "vendor"), CASES)
def test_latest_citation_deltas_are_the_final_citations(path: Path, vendor: str) -> None:
    """The latest CitationDelta of each source is the final citation, rank included."""
    read = read_stream(vendor, load_events(path))
    assert read.latest_citations() == read.result.citations


@pytest.mark.parametrize(("path", "vendor"), CASES)
def test_search_events_are_the_tool_calls(path: Path, vendor: str) -> None:
    """One SearchStarted per tool call; their queries are the result's queries, in order."""
    read = read_stream(vendor, load_events(path))
    searches = read.searches()
    assert len(searches) == read.result.tool_call_count
    queries = list(dict.fromkeys(q for search in searches for q in search.queries))
    assert queries == read.result.web_search_queries


@pytest.mark.parametrize(("path", "vendor"), CASES)
def test_spans_point_into_the_text_delivered_so_far(path: Path, vendor: str) -> None:
    """Every streamed span lies within the text delivered when it was sent, and covers it."""
    read = read_stream(vendor, load_events(path))
    for span, delivered in read.spans_with_text():
        assert 0 <= span["start"] < span["end"] <= len(delivered)
        assert delivered[span["start"] : span["end"]] == span["text"]


@pytest.mark.parametrize(("path", "vendor"), CASES)
def test_stream_equals_extract_on_its_final_body(path: Path, vendor: str) -> None:
    """Accumulating the stream gives what extract gives for the equivalent final body."""
    body = stream_final_body(path)
    if body is None:
        pytest.skip("no independent final-body builder for this kind of stream")
    streamed = extract(vendor, load_events(path))
    final = extract(vendor, body)
    assert _fields(streamed.citations) == _fields(final.citations)
    assert streamed.content == final.content
    assert streamed.web_search_queries == final.web_search_queries
    assert streamed.tool_call_count == final.tool_call_count
    assert streamed.grounded_effective == final.grounded_effective


@pytest.mark.parametrize(("path", "vendor"), CASES)
def test_stream_matches_its_golden_row(path: Path, vendor: str) -> None:
    """The outcome is the one recorded in the golden table (content, citations, searches)."""
    golden = GOLDEN.get(f"{vendor}:{name_of(path)}")
    assert golden is not None, "add the stream's row to tests/data/recorded_streams.json"
    result = read_stream(vendor, load_events(path)).result
    assert {
        "content_chars": len(result.content),
        "content_start": result.content[:60],
        "citations": [
            [c["url"], c["source_domain"], c["cited"], len(c["spans"])] for c in result.citations
        ],
        "web_search_queries": result.web_search_queries,
        "tool_call_count": result.tool_call_count,
    } == golden
