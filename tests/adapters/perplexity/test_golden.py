"""The three recorded Perplexity Sonar bodies, read by the Perplexity mapper.

Each expectation is read off the body itself (its ``[n]`` markers, ``search_results`` and
``citations``) and written down here from the MANIFEST notes: markers become spans of source n,
snippets become ``cited_text`` only for cited sources, null or missing dates stay in ``raw``,
and a body without ``search_results`` falls back to its bare ``citations`` URLs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from adapters.perplexity.reply import map_perplexity_reply
from router.citations.build import CITED_TEXT_LIMIT, sanitize_text
from router.types import LLMRequest
from support.citations import citation_problems
from support.recorded import RECORDED_DIR, load_final_body

SEARCH_RESULTS = RECORDED_DIR / "ruby_llm" / "perplexity_sonar_search_results.json"
CITATIONS_ONLY = RECORDED_DIR / "vercel-ai" / "perplexity_sonar_citations.json"
FOURTEEN = RECORDED_DIR / "prism" / "perplexity_sonar_citations_search_results.json"
FILES = [SEARCH_RESULTS, CITATIONS_ONLY, FOURTEEN]
REQUEST = LLMRequest.model_validate(
    {"vendor": "perplexity", "model": "sonar", "messages": [{"role": "user", "content": "q"}]}
)


def _mapped(path: Path) -> Any:
    return map_perplexity_reply(load_final_body(path), REQUEST)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_marker_is_a_span_of_its_source(path: Path) -> None:
    """Each [n] in the answer is exactly one span, on the citation ranked n, at its offsets."""
    result = _mapped(path)
    by_rank = {citation["rank"]: citation for citation in result.citations}
    markers = [(m.start(), m.end(), int(m[1])) for m in re.finditer(r"\[(\d+)\]", result.content)]
    assert markers
    for start, end, number in markers:
        assert {"start": start, "end": end, "text": f"[{number}]"} in by_rank[number]["spans"]
    assert sum(len(c["spans"]) for c in result.citations) == len(markers)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_citation_satisfies_the_schema(path: Path) -> None:
    """Each citation has the twelve keys with valid values; spans lie inside the answer."""
    result = _mapped(path)
    for citation in result.citations:
        assert citation_problems(citation, result.content, provider="perplexity") == []
    assert result.grounded_effective is True
    assert result.warnings == []


def test_search_results_give_titles_snippets_and_cited_text() -> None:
    """ruby_llm: six search results; the cited four quote their snippet, the rest do not."""
    body = load_final_body(SEARCH_RESULTS)
    result = _mapped(SEARCH_RESULTS)
    results = body["search_results"]
    assert [c["rank"] for c in result.citations] == [1, 2, 3, 4, 5, 6]
    assert [c["title"] for c in result.citations] == [r["title"] for r in results]
    assert [c["cited"] for c in result.citations] == [True, True, True, True, False, False]
    for citation, source in zip(result.citations, results, strict=True):
        assert citation["location"] == {
            "type": "search_result",
            "search_result_index": citation["rank"] - 1,
        }
        quoted = sanitize_text(source["snippet"], limit=CITED_TEXT_LIMIT)
        assert citation["cited_text"] == (quoted if citation["cited"] else None)
        assert citation["snippet"] is not None
    assert result.citations[0]["cited_text"] == results[0]["snippet"]
    assert result.citations[0]["source_domain"] == "wikipedia.org"
    assert result.citations[5]["source_type"] == "video"


def test_a_missing_or_null_date_stays_as_sent() -> None:
    """The raw search result keeps its date as sent: missing on ruby-lang.org, null nowhere else."""
    result = _mapped(SEARCH_RESULTS)
    raws = {c["source_domain"]: c["raw"] for c in result.citations}
    assert "date" not in raws["ruby-lang.org"]
    assert raws["wikipedia.org"]["date"] == "2001-10-17"
    fourteen = _mapped(FOURTEEN)
    dateless = [c for c in fourteen.citations if "date" not in c["raw"]]
    assert [c["rank"] for c in dateless] == [5, 11]


def test_without_search_results_the_bare_urls_are_the_sources() -> None:
    """vercel: no search_results; the seven citation URLs are the sources, all but [4] cited."""
    body = load_final_body(CITATIONS_ONLY)
    assert "search_results" not in body
    result = _mapped(CITATIONS_ONLY)
    assert [c["url"] for c in result.citations] == body["citations"]
    assert [c["rank"] for c in result.citations if not c["cited"]] == [4]
    assert all(c["title"] is None and c["cited_text"] is None for c in result.citations)
    assert [c["raw"] for c in result.citations] == [{"url": url} for url in body["citations"]]


def test_only_the_cited_of_fourteen_are_cited() -> None:
    """prism: 14 sources, the answer cites [1], [3] and [4] only."""
    result = _mapped(FOURTEEN)
    assert len(result.citations) == 14
    assert [c["rank"] for c in result.citations if c["cited"]] == [1, 3, 4]
    assert [len(c["spans"]) for c in result.citations if c["cited"]] == [5, 3, 2]


def test_usage_keeps_the_reported_cost_and_context_size() -> None:
    """usage.cost becomes the reported cost, its request cost the search part."""
    result = _mapped(SEARCH_RESULTS)
    assert result.usage.reported_cost == pytest.approx(0.00519)
    assert result.usage.reported_search_cost == pytest.approx(0.005)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (8, 178)
    assert result.metadata["search_context_size"] == "low"
    assert result.metadata["cost"]["total_cost"] == pytest.approx(0.00519)
    assert _mapped(CITATIONS_ONLY).usage.reported_cost is None
