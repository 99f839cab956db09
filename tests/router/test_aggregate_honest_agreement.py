"""Agreement figures count URL matches as URL agreement; domain joins are reported apart.

Two Vertex redirect links to different Wikipedia pages must not both fold into OpenAI's one
Wikipedia entry, and a redirect joined by domain is no shared URL.
"""

from __future__ import annotations

from typing import Any

import pytest

from router.aggregate import aggregate
from router.citations import make_citation
from router.types import Citation, LLMResponse

REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ{}"
RUBY_WIKI = "https://en.wikipedia.org/wiki/Ruby_(programming_language)"


def response(vendor: str, citations: list[Citation]) -> LLMResponse:
    return LLMResponse(vendor=vendor, model="m", content="", citations=citations)  # type: ignore[arg-type]


def cite(vendor: str, url: str, rank: int, *, cited: bool = True, **extra: Any) -> Citation:
    citation = make_citation(provider=vendor, url=url, rank=rank, cited=cited, **extra)  # type: ignore[arg-type]
    assert citation is not None
    return citation


def two_wikipedia_redirects() -> dict[str, LLMResponse]:
    """OpenAI cites one Wikipedia page; Vertex two redirect links titled 'wikipedia.org'."""
    return {
        "openai": response("openai", [cite("openai", RUBY_WIKI, 1)]),
        "vertex": response(
            "vertex",
            [
                cite("vertex", REDIRECT.format("first"), 1, title="wikipedia.org"),
                cite("vertex", REDIRECT.format("second"), 2, title="wikipedia.org"),
            ],
        ),
    }


def test_domain_joins_are_not_url_agreement() -> None:
    """Redirect links joined by domain share no URL: url_jaccard is 0, not 1."""
    (pair,) = aggregate(two_wikipedia_redirects()).agreement
    assert pair["url_jaccard"] == 0.0
    assert pair["shared_urls"] == 0


def test_domain_joins_are_counted_apart() -> None:
    """The pair reports its one domain-only join and its domain overlap beside the URL figure."""
    (pair,) = aggregate(two_wikipedia_redirects()).agreement
    assert pair["domain_joins"] == 1
    assert pair["domain_jaccard"] == 1.0
    assert pair["shared_domains"] == 1


def test_two_sources_of_one_provider_never_fold_into_one_entry() -> None:
    """Vertex's two distinct redirect links stay two sources: only the better ranked joins."""
    result = aggregate(two_wikipedia_redirects())
    wikipedia = [e for e in result.entries if e["source_domain"] == "wikipedia.org"]
    assert len(wikipedia) == 2
    joined, alone = wikipedia
    assert joined["url"] == RUBY_WIKI
    assert joined["providers_cited"] == ["openai", "vertex"]
    assert joined["ranks"] == {"openai": 1, "vertex": 1}
    assert joined["matched_by"] == "domain"
    assert alone["url"] == REDIRECT.format("second")
    assert alone["providers_cited"] == ["vertex"]
    assert result.cited_by_one["vertex"] == [REDIRECT.format("second")]


def test_a_redirect_never_joins_an_entry_its_provider_already_has() -> None:
    """A provider that cites a page by URL does not also join it with its own redirect link."""
    result = aggregate(
        {
            "openai": response("openai", [cite("openai", RUBY_WIKI, 1)]),
            "vertex": response(
                "vertex",
                [
                    cite("vertex", RUBY_WIKI, 1),
                    cite("vertex", REDIRECT.format("other"), 2, title="wikipedia.org"),
                ],
            ),
        }
    )
    by_url = {e["url"]: e for e in result.entries}
    assert by_url[RUBY_WIKI]["matched_by"] == "url"
    assert by_url[RUBY_WIKI]["ranks"] == {"openai": 1, "vertex": 1}
    assert by_url[REDIRECT.format("other")]["providers_cited"] == ["vertex"]
    (pair,) = result.agreement
    assert (pair["shared_urls"], pair["domain_joins"]) == (1, 0)
    assert pair["url_jaccard"] == pytest.approx(1 / 2)


def test_url_matches_alone_make_url_agreement() -> None:
    """The same page cited by both (tracking aside) is a shared URL and no domain join."""
    (pair,) = aggregate(
        {
            "openai": response("openai", [cite("openai", RUBY_WIKI + "?utm_source=x", 1)]),
            "vertex": response("vertex", [cite("vertex", RUBY_WIKI, 3)]),
        }
    ).agreement
    assert (pair["url_jaccard"], pair["shared_urls"], pair["domain_joins"]) == (1.0, 1, 0)
