"""The cross-provider aggregate: one entry per source, who cites it, and how far providers agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.openai.adapter import _extract_openai_citations
from adapters.vertex.adapter import _extract_vertex_citations
from router.aggregate import aggregate
from router.citations import make_citation
from router.types import Citation, LLMResponse
from support.recorded import load_final_body

RECORDED = Path(__file__).parents[1] / "data" / "recorded" / "ruby_llm"
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ{}"


def response(vendor: str, citations: list[Citation]) -> LLMResponse:
    return LLMResponse(vendor=vendor, model="m", content="", citations=citations)  # type: ignore[arg-type]


def cite(vendor: str, url: str, rank: int, *, cited: bool = True, **extra: Any) -> Citation:
    citation = make_citation(provider=vendor, url=url, rank=rank, cited=cited, **extra)  # type: ignore[arg-type]
    assert citation is not None
    return citation


def ruby_version_answers() -> dict[str, LLMResponse]:
    """OpenAI and Vertex asked which Ruby version is current (the same question, recorded)."""
    openai = _extract_openai_citations(
        load_final_body(RECORDED / "openai_responses_gpt52_ruby_version.json")
    )
    vertex = _extract_vertex_citations(
        load_final_body(RECORDED / "vertex_gemini25flash_ruby_version_web_domain.json")
    )
    return {"openai": response("openai", openai), "vertex": response("vertex", vertex)}


def test_recorded_redirect_joins_the_other_provider_by_domain() -> None:
    """Vertex's ruby-lang.org redirect link joins OpenAI's ruby-lang.org page, flagged 'domain'."""
    result = aggregate(ruby_version_answers())
    first = result.entries[0]
    assert first["source_domain"] == "ruby-lang.org"
    assert first["url"] == "https://www.ruby-lang.org/en/downloads/"
    assert first["providers_cited"] == ["openai", "vertex"]
    assert first["cited_count"] == 2
    assert first["matched_by"] == "domain"
    assert first["ranks"] == {"openai": 1, "vertex": 1}


def test_recorded_source_cited_by_one_provider_stays_its_own() -> None:
    """Wikipedia, cited only by Vertex through a redirect, is an entry of its own."""
    result = aggregate(ruby_version_answers())
    wikipedia = [e for e in result.entries if e["source_domain"] == "wikipedia.org"]
    assert len(wikipedia) == 1
    assert wikipedia[0]["providers_cited"] == ["vertex"]
    assert wikipedia[0]["matched_by"] == "url"
    assert wikipedia[0]["url"] is not None
    assert wikipedia[0]["url"].startswith("https://vertexaisearch.cloud.google.com/")
    assert result.cited_by_one == {"openai": [], "vertex": [wikipedia[0]["url"]]}


def test_recorded_agreement_figures() -> None:
    """Both cite ruby-lang.org, Vertex by a redirect joined by domain: no URL shared, one join."""
    (pair,) = aggregate(ruby_version_answers()).agreement
    assert pair["providers"] == ["openai", "vertex"]
    assert pair["url_jaccard"] == 0.0
    assert pair["domain_jaccard"] == pytest.approx(0.5)
    assert pair["shared_urls"] == 0
    assert pair["shared_domains"] == 1
    assert pair["domain_joins"] == 1


def test_same_page_with_other_tracking_parameters_is_one_entry() -> None:
    """Two providers citing one page (tracking parameters aside) share one entry by URL."""
    result = aggregate(
        {
            "openai": response(
                "openai", [cite("openai", "https://www.bbc.co.uk/news/a?utm_source=openai", 2)]
            ),
            "vertex": response("vertex", [cite("vertex", "https://bbc.co.uk/news/a", 1)]),
        }
    )
    (entry,) = result.entries
    assert entry["matched_by"] == "url"
    assert entry["providers_cited"] == ["openai", "vertex"]
    assert entry["ranks"] == {"openai": 2, "vertex": 1}


def test_a_source_only_found_in_search_is_seen_not_cited() -> None:
    """A provider that only found the page in its search is listed as having seen it."""
    result = aggregate(
        {
            "openai": response("openai", [cite("openai", "https://example.com/x", 1)]),
            "vertex": response("vertex", [cite("vertex", "https://example.com/x", 3, cited=False)]),
        }
    )
    (entry,) = result.entries
    assert entry["providers_cited"] == ["openai"]
    assert entry["providers_seen"] == ["vertex"]
    assert entry["cited_count"] == 1


def test_a_redirect_whose_domain_is_unknown_never_joins() -> None:
    """A redirect link naming no source domain stays apart (its domain is the redirector's)."""
    unknown = cite("vertex", REDIRECT.format("unknown"), 1)
    assert unknown["source_domain"] == "google.com"
    result = aggregate(
        {
            "openai": response("openai", [cite("openai", "https://www.google.com/maps", 1)]),
            "vertex": response("vertex", [unknown]),
        }
    )
    assert len(result.entries) == 2
    assert all(entry["matched_by"] == "url" for entry in result.entries)


def test_a_redirect_whose_domain_is_unknown_is_in_no_domain_set() -> None:
    """Its redirector (google.com) is no cited domain: it never overlaps another's google.com."""
    result = aggregate(
        {
            "openai": response("openai", [cite("openai", "https://www.google.com/maps", 1)]),
            "vertex": response("vertex", [cite("vertex", REDIRECT.format("unknown"), 1)]),
        }
    )
    assert result.cited_domains == {"openai": ["google.com"], "vertex": []}
    (pair,) = result.agreement
    assert pair["domain_jaccard"] == 0.0
    assert pair["shared_domains"] == 0


def test_recorded_cited_domains_per_provider() -> None:
    """Each provider's cited domains, a redirect with a known domain under that domain."""
    assert aggregate(ruby_version_answers()).cited_domains == {
        "openai": ["ruby-lang.org"],
        "vertex": ["ruby-lang.org", "wikipedia.org"],
    }


def test_a_redirect_joins_the_best_ranked_page_of_its_domain() -> None:
    """With two pages of the domain, the redirect joins the better-ranked one."""
    result = aggregate(
        {
            "openai": response(
                "openai",
                [
                    cite("openai", "https://www.bbc.co.uk/sport", 1),
                    cite("openai", "https://www.bbc.co.uk/news", 2),
                ],
            ),
            "vertex": response(
                "vertex", [cite("vertex", REDIRECT.format("x"), 1, title="bbc.co.uk")]
            ),
        }
    )
    joined = [e for e in result.entries if "vertex" in e["providers_cited"]]
    assert [e["url"] for e in joined] == ["https://www.bbc.co.uk/sport"]
    assert joined[0]["matched_by"] == "domain"


def test_entries_are_ordered_by_citing_providers_then_best_rank() -> None:
    """Sources more providers cite come first; among equals, the best rank first."""
    result = aggregate(
        {
            "openai": response(
                "openai",
                [
                    cite("openai", "https://a.example/1", 1),
                    cite("openai", "https://b.example/1", 2),
                    cite("openai", "https://c.example/1", 3),
                ],
            ),
            "vertex": response("vertex", [cite("vertex", "https://c.example/1", 5)]),
        }
    )
    assert [e["source_domain"] for e in result.entries] == ["c.example", "a.example", "b.example"]


def test_no_citations_means_no_agreement_figure() -> None:
    """Two providers that cite nothing have no overlap to speak of (None, not 0 or 1)."""
    result = aggregate({"openai": response("openai", []), "vertex": response("vertex", [])})
    assert result.entries == []
    (pair,) = result.agreement
    assert pair["url_jaccard"] is None
    assert pair["domain_jaccard"] is None


def test_responses_given_as_a_list_are_keyed_by_vendor() -> None:
    """A list of responses works like a mapping by vendor; two of one vendor are refused."""
    answers = list(ruby_version_answers().values())
    assert aggregate(answers).providers == ["openai", "vertex"]
    with pytest.raises(ValueError, match="two responses of 'openai'"):
        aggregate([answers[0], answers[0]])


def test_the_aggregate_is_json_able() -> None:
    """to_dict() gives plain JSON values."""
    import json

    data = aggregate(ruby_version_answers()).to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["entries"][0]["providers_cited"] == ["openai", "vertex"]
