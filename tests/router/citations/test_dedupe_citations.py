"""dedupe_citations: one citation per source, earliest rank kept, evidence merged."""

from __future__ import annotations

import copy

from router.citations import dedupe_citations, make_citation
from router.types import Citation, Span

REDIRECT_A = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ-a"
REDIRECT_B = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ-b"


def _citation(url: str | None, rank: int | None, **fields: object) -> Citation:
    citation = make_citation(provider="openai", url=url, rank=rank, **fields)  # type: ignore[arg-type]
    assert citation is not None
    return citation


def _span(start: int, end: int) -> Span:
    return Span(start=start, end=end, text=f"s{start}")


def test_same_page_merges_and_keeps_earliest_rank() -> None:
    """Two citations of the same page (utm, www, scheme, fragment aside) become one."""
    first = _citation("https://www.bbc.co.uk/news?utm_source=openai", 2, spans=[_span(5, 9)])
    second = _citation("http://bbc.co.uk/news#top", 1, spans=[_span(1, 3)])
    merged = dedupe_citations([first, second])
    assert len(merged) == 1
    assert merged[0]["rank"] == 1
    assert merged[0]["url"] == "http://bbc.co.uk/news#top"
    assert merged[0]["spans"] == [_span(1, 3), _span(5, 9)]


def test_spans_union_without_duplicates() -> None:
    """The same span cited twice appears once; spans come out in text order."""
    a = _citation("https://example.com/a", 1, spans=[_span(20, 30), _span(0, 5)])
    b = _citation("https://example.com/a", 2, spans=[_span(0, 5), _span(10, 12)])
    (merged,) = dedupe_citations([a, b])
    assert merged["spans"] == [_span(0, 5), _span(10, 12), _span(20, 30)]


def test_cited_if_any_was_cited() -> None:
    """A source only seen in search results but also cited counts as cited."""
    search_result = _citation("https://example.com/a", 1, cited=False)
    annotation = _citation("https://example.com/a", 5, cited=True)
    (merged,) = dedupe_citations([search_result, annotation])
    assert merged["cited"] is True
    assert merged["rank"] == 1


def test_best_non_empty_title_kept() -> None:
    """An empty title gives way to a real one, and a bare-domain title to a page title."""
    no_title = _citation("https://example.com/a", 1)
    domain_title = _citation("https://example.com/a", 2, title="example.com")
    page_title = _citation("https://example.com/a", 3, title="A page | Example")
    (merged,) = dedupe_citations([no_title, domain_title, page_title])
    assert merged["title"] == "A page | Example"


def test_first_title_kept_when_both_are_real() -> None:
    """Between two real titles, the earliest-ranked citation's wins."""
    a = _citation("https://example.com/a", 2, title="Second")
    b = _citation("https://example.com/a", 1, title="First")
    (merged,) = dedupe_citations([a, b])
    assert merged["title"] == "First"


def test_first_non_empty_snippet_kept() -> None:
    """A missing snippet is filled from a duplicate."""
    a = _citation("https://example.com/a", 1)
    b = _citation("https://example.com/a", 2, snippet="supporting text")
    (merged,) = dedupe_citations([a, b])
    assert merged["snippet"] == "supporting text"


def test_distinct_redirects_stay_distinct() -> None:
    """Redirect-only citations are keyed by their redirect URL, even with one domain."""
    a = _citation(REDIRECT_A, 1, title="pydantic.dev")
    b = _citation(REDIRECT_B, 2, title="pydantic.dev")
    assert [c["url"] for c in dedupe_citations([a, b])] == [REDIRECT_A, REDIRECT_B]


def test_different_query_values_stay_distinct() -> None:
    """Pages that differ by a real query parameter are different sources."""
    a = _citation("https://example.com/s?page=1", 1)
    b = _citation("https://example.com/s?page=2", 2)
    assert len(dedupe_citations([a, b])) == 2


def test_output_ordered_by_rank_with_unranked_last() -> None:
    """The output is ordered by rank; citations without a rank come last, in input order."""
    unranked_a = _citation("https://a.example/", None)
    ranked_3 = _citation("https://b.example/", 3)
    unranked_b = _citation("https://c.example/", None)
    ranked_1 = _citation("https://d.example/", 1)
    result = dedupe_citations([unranked_a, ranked_3, unranked_b, ranked_1])
    assert [c["url"] for c in result] == [
        "https://d.example",
        "https://b.example",
        "https://a.example",
        "https://c.example",
    ]


def test_citations_without_url_merge_only_when_identical() -> None:
    """URL-less citations (a document named by its domain) merge only with their twin."""
    a = _citation(None, 1, domain_hint="example.com", title="Report")
    b = _citation(None, 2, domain_hint="example.com", title="Report")
    c = _citation(None, 3, domain_hint="example.com", title="Other report")
    assert [x["rank"] for x in dedupe_citations([a, b, c])] == [1, 3]


def test_inputs_are_not_mutated() -> None:
    """dedupe_citations returns new dicts and leaves its inputs as they were."""
    a = _citation("https://example.com/a", 2, spans=[_span(1, 2)])
    b = _citation("https://example.com/a", 1, spans=[_span(3, 4)], cited=True)
    before = copy.deepcopy([a, b])
    dedupe_citations([a, b])
    assert [a, b] == before


def test_recorded_openai_duplicates_collapse() -> None:
    """Twelve annotations over six URLs (the recorded gpt-4o answer's shape) give six sources."""
    urls = [
        "https://www.reuters.com/world/a/?utm_source=openai",
        "https://apnews.com/article/b?utm_source=openai",
        "https://www.cbsnews.com/news/c/?utm_source=openai",
        "https://www.britannica.com/place/Mount-Columbia?utm_source=openai",
        "https://www.marketscreener.com/news/d?utm_source=openai",
        "https://www.reuters.com/world/e/?utm_source=openai",
    ]
    citations = [
        _citation(url, index + 1, spans=[_span(index * 10, index * 10 + 5)], cited=True)
        for index, url in enumerate(urls + urls)
    ]
    result = dedupe_citations(citations)
    assert [c["rank"] for c in result] == [1, 2, 3, 4, 5, 6]
    assert all(len(c["spans"]) == 2 for c in result)
