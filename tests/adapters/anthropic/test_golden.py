"""Golden citations of every recorded Anthropic body (six JSON bodies, two SSE streams).

The expectation files (tests/data/expected/anthropic/<project>__<file>.json) were checked row by
row against the bodies and the MANIFEST notes. The other tests here check what the extraction
gives against the bodies themselves: cited text, locations, spans, result order, counts. Streams
are read as the final message their events build (support.recorded.merge_anthropic_events).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.anthropic.citations import read_anthropic_reply
from router.citations import sanitize_text
from router.citations.text import CITED_TEXT_LIMIT
from support.anthropic import ANTHROPIC_FILES, EXPECTED_DIR, body_citations, sdk_message
from support.citations import citation_problems, golden_row
from support.recorded import is_normalized, load_final_body

IDS = [f"{path.parent.name}/{path.name}" for path in ANTHROPIC_FILES]
RAW_FILES = [path for path in ANTHROPIC_FILES if not is_normalized(path)]
COUNTS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "anthropic_recorded_counts.json").read_text("utf-8")
)


def _expected(path: Path) -> dict[str, Any]:
    name = f"{path.parent.name}__{path.name}.json"
    expected: dict[str, Any] = json.loads((EXPECTED_DIR / name).read_text("utf-8"))
    return expected


def _results(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The result list of each web search, in order (an error result counts as no results)."""
    return [
        block["content"] if isinstance(block["content"], list) else []
        for block in body["content"]
        if block.get("type") == "web_search_tool_result"
    ]


def test_every_anthropic_body_has_an_expectation() -> None:
    """The expectation files and the eight recorded Anthropic bodies match one to one."""
    expected = sorted(path.name for path in EXPECTED_DIR.glob("*.json"))
    assert expected == sorted(f"{name.replace('/', '__')}.json" for name in IDS)
    assert len(IDS) == 8
    assert sum(path.name.endswith(".sse.txt") for path in ANTHROPIC_FILES) == 2


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_golden_citations(path: Path) -> None:
    """The extracted citations are exactly the checked expectation, row for row."""
    reply = read_anthropic_reply(load_final_body(path))
    rows = [golden_row(c, is_normalized(path)) for c in reply.citations]
    assert rows == _expected(path)["citations"]


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_golden_grounding(path: Path) -> None:
    """Searches, queries, search errors and warnings are the checked expectation."""
    grounding = read_anthropic_reply(load_final_body(path)).grounding
    assert {
        "tool_call_count": grounding.tool_call_count,
        "web_search_queries": list(grounding.web_search_queries),
        "grounded_effective": grounding.grounded_effective,
        "search_errors": list(grounding.search_errors),
        "warnings": len(grounding.warnings),
    } == _expected(path)["grounding"]


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_every_citation_satisfies_the_schema(path: Path) -> None:
    """Each citation has the twelve keys with valid values; spans lie inside the answer."""
    reply = read_anthropic_reply(load_final_body(path))
    for citation in reply.citations:
        assert citation_problems(citation, reply.content, provider="anthropic") == []


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_cited_text_and_location_are_the_first_citation_of_the_url(path: Path) -> None:
    """A cited URL carries the cited_text and encrypted_index of its first citation in the body,
    and its search_result_index is where a search returned that URL."""
    body = load_final_body(path)
    by_url = {c["url"]: c for c in read_anthropic_reply(body).citations if c["cited"]}
    first: dict[str, dict[str, Any]] = {}
    for _, citation in body_citations(body):
        first.setdefault(citation["url"], citation)
    assert len(first) == len(by_url)
    results = _results(body)
    for url, citation in first.items():
        (extracted,) = [c for c in by_url.values() if c["raw"]["url"] == url]
        assert extracted["cited_text"] == sanitize_text(citation["cited_text"], limit=500)
        location = extracted["location"]
        assert location["type"] == "search_result"
        assert location["encrypted_index"] == citation["encrypted_index"]
        index = location["search_result_index"]
        assert any(len(r) > index and r[index]["url"] == url for r in results)


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_cited_text_is_never_cut_at_recorded_lengths(path: Path) -> None:
    """Recorded cited_text runs to 153 characters: far under the limit, kept whole."""
    for citation in read_anthropic_reply(load_final_body(path)).citations:
        text = citation["cited_text"]
        assert text is None or (len(text) <= 153 < CITED_TEXT_LIMIT and not text.endswith("…"))


@pytest.mark.parametrize("path", RAW_FILES, ids=[f"{p.parent.name}/{p.name}" for p in RAW_FILES])
def test_spans_are_the_citing_blocks(path: Path) -> None:
    """On raw bodies the spans of a URL are exactly the text blocks that cite it."""
    body = load_final_body(path)
    reply = read_anthropic_reply(body)
    offset = 0
    expected: dict[str, set[tuple[int, int, str]]] = {}
    after_search = False
    for block in body["content"]:
        if block.get("type") != "text":
            after_search = after_search or offset > 0
            continue
        start = reply.content.index(block["text"], offset) if block["text"] else offset
        # Blocks follow each other as they are; only a turn after a search may be set apart.
        assert reply.content[offset:start] in (("", "\n\n") if after_search else ("",))
        after_search = False
        offset = start + len(block["text"])
        for citation in block.get("citations") or []:
            expected.setdefault(citation["url"], set()).add((start, offset, block["text"]))
    spans = {
        c["raw"]["url"]: {(s["start"], s["end"], s["text"]) for s in c["spans"]}
        for c in reply.citations
        if c["cited"]
    }
    assert spans == expected
    for found in spans.values():
        for start, end, text in found:
            assert reply.content[start:end] == text


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_uncited_results_follow_in_result_order_with_page_age(path: Path) -> None:
    """Uncited sources are the search results not cited, in search and result order; their raw
    keeps page_age and drops encrypted_content."""
    body = load_final_body(path)
    citations = read_anthropic_reply(body).citations
    cited_urls = {c["raw"]["url"] for c in citations if c["cited"]}
    expected = list(
        dict.fromkeys(
            result["url"]
            for results in _results(body)
            for result in results
            if result["url"] not in cited_urls
        )
    )
    uncited = [c for c in citations if not c["cited"]]
    assert [c["raw"]["url"] for c in uncited] == expected
    for citation in uncited:
        assert "page_age" in citation["raw"]
        assert "encrypted_content" not in citation["raw"]
        assert citation["location"] is None
        assert citation["cited_text"] is None
    assert [c["rank"] for c in citations] == list(range(1, len(citations) + 1))


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_rank_is_the_position_among_the_search_results(path: Path) -> None:
    """Cited or not, sources are ranked by their position over all searches, in search order."""
    body = load_final_body(path)
    citations = read_anthropic_reply(body).citations
    results = list(dict.fromkeys(r["url"] for results in _results(body) for r in results))
    assert [c["raw"]["url"] for c in citations] == results
    assert [c["rank"] for c in citations] == list(range(1, len(results) + 1))


@pytest.mark.parametrize("row", COUNTS, ids=[row["file"] for row in COUNTS])
def test_counts_match_the_manifest(row: dict[str, Any]) -> None:
    """Searches, results, empty result lists and citations are what the MANIFEST says."""
    (path,) = [p for p in ANTHROPIC_FILES if f"{p.parent.name}/{p.name}" == row["file"]]
    body = load_final_body(path)
    reply = read_anthropic_reply(body)
    results = _results(body)
    assert reply.grounding.tool_call_count == row["searches"]
    assert sum(len(r) for r in results) == row["results"]
    assert sum(1 for r in results if r == []) == row["empty_searches"]
    assert len(body_citations(body)) == row["body_citations"]
    assert reply.grounding.warnings == ()


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_sdk_message_reads_like_its_body(path: Path) -> None:
    """The SDK's Message built from a body gives the same content and citations as the dict."""
    body = load_final_body(path)
    from_dict = read_anthropic_reply(body)
    from_sdk = read_anthropic_reply(sdk_message(body))
    assert from_sdk.content == from_dict.content
    assert from_sdk.citations == from_dict.citations
    assert from_sdk.grounding == from_dict.grounding


@pytest.mark.parametrize("path", ANTHROPIC_FILES, ids=IDS)
def test_extract_gives_the_mapped_reply(path: Path) -> None:
    """extract("anthropic", body) gives the content, citations and grounding of the mapper."""
    from router import extract

    body = load_final_body(path)
    reply = read_anthropic_reply(body)
    response = extract("anthropic", json.dumps(body))
    assert response.content == reply.content
    assert response.citations == reply.citations
    assert response.grounded_effective is reply.grounding.grounded_effective
    assert response.web_search_queries == list(reply.grounding.web_search_queries)
