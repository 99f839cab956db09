"""The aggregate over recorded replies of four providers to one question, and of failed ones.

"Which Ruby version is the latest stable one?" was recorded from OpenAI (Responses), OpenAI's
search model through chat completions (read as OpenRouter's chat replies are), the Gemini API
and Vertex AI. No two of them cite the same URL: OpenAI and OpenRouter cite different
ruby-lang.org pages, and Gemini and Vertex cite only redirect links, which join another
provider's page through their domain. Exact-URL joins are checked on hand-made replies in
``test_aggregate.py``.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from router.aggregate import aggregate
from router.errors import GroundingRequiredFailedError, ProviderTransientError, RouterError
from router.extraction import extract
from router.types import LLMRequest, LLMResponse
from router.validation import require_grounding
from support.recorded import RECORDED_DIR, load_final_body

RUBY = RECORDED_DIR / "ruby_llm"
RUBY_REPLIES = {
    "openai": RUBY / "openai_responses_gpt52_ruby_version.json",
    "openrouter": RUBY / "openai_chat_gpt4o_mini_search_preview_url_citations.json",
    "gemini": RUBY / "gemini35flash_web_search_grounding.json",
    "vertex": RUBY / "vertex_gemini25flash_ruby_version_web_domain.json",
}
DOWNLOADS = "https://www.ruby-lang.org/en/downloads/"
RELEASE_NEWS = "https://www.ruby-lang.org/en/news/2025/10/07/ruby-3-4-7-released/"
# A Gemini API answer with empty grounding metadata: it never searched.
UNSEARCHED = RECORDED_DIR / "pydantic-ai" / "gemini25flash_empty_grounding_metadata.normalized.json"
REQUIRED_GEMINI = LLMRequest.model_validate(
    {
        "vendor": "gemini",
        "model": "gemini-2.5-flash",
        "messages": [{"role": "user", "content": "Which Ruby version is the latest stable one?"}],
        "grounded": True,
        "grounding_mode": "REQUIRED",
    }
)


def read(vendor: str, path: Path) -> LLMResponse:
    return extract(vendor, load_final_body(path))


@pytest.fixture(scope="module")
def answers() -> dict[str, LLMResponse]:
    return {vendor: read(vendor, path) for vendor, path in RUBY_REPLIES.items()}


def entry_of(outcomes: dict[str, LLMResponse | RouterError], url: str) -> dict[str, object]:
    (entry,) = [e for e in aggregate(outcomes).entries if e["url"] == url]
    return dict(entry)


def test_the_source_most_providers_cite_comes_first(answers: dict[str, LLMResponse]) -> None:
    """OpenAI's downloads page, joined by Gemini's and Vertex's ruby-lang.org redirects."""
    first = aggregate(answers).entries[0]
    assert first["url"] == DOWNLOADS
    assert first["providers_cited"] == ["openai", "gemini", "vertex"]
    assert first["cited_count"] == 3
    assert first["matched_by"] == "domain"
    assert first["ranks"] == {"openai": 1, "gemini": 3, "vertex": 1}  # Gemini's first of two


def test_a_redirect_joins_whichever_provider_cites_its_domain(
    answers: dict[str, LLMResponse],
) -> None:
    """Gemini's dev.to redirect joins the dev.to article only OpenRouter's answer cites."""
    (dev_to,) = [e for e in aggregate(answers).entries if e["source_domain"] == "dev.to"]
    assert dev_to["url"] is not None
    assert dev_to["url"].startswith("https://dev.to/hsbt/")
    assert dev_to["providers_cited"] == ["openrouter", "gemini"]
    assert dev_to["matched_by"] == "domain"


def test_redirect_only_sources_without_a_partner_stay_their_own(
    answers: dict[str, LLMResponse],
) -> None:
    """github.com, endoflife.date and wikipedia.org: one redirect entry each, by one provider."""
    result = aggregate(answers)
    alone = {
        e["source_domain"]: e["providers_cited"]
        for e in result.entries
        if e["url"] is not None and e["url"].startswith("https://vertexaisearch.")
    }
    assert alone == {
        "github.com": ["gemini"],
        "endoflife.date": ["gemini"],
        "wikipedia.org": ["vertex"],
    }
    assert all(e["matched_by"] == "url" for e in result.entries if e["source_domain"] in alone)
    assert len(result.cited_by_one["gemini"]) == 2
    # Gemini's second ruby-lang.org link joins OpenRouter's news page, not its first one's entry.
    assert result.cited_by_one["openrouter"] == []
    assert entry_of(answers, RELEASE_NEWS)["providers_cited"] == ["openrouter", "gemini"]


def test_two_redirect_only_providers_share_domains_never_urls(
    answers: dict[str, LLMResponse],
) -> None:
    """Gemini and Vertex alone: both cite ruby-lang.org, but no link of theirs names a page."""
    (pair,) = aggregate({v: answers[v] for v in ("gemini", "vertex")}).agreement
    assert (pair["shared_urls"], pair["url_jaccard"]) == (0, 0.0)
    assert pair["shared_domains"] == 1
    assert pair["domain_jaccard"] == pytest.approx(1 / 5)  # of dev.to, endoflife, github, ...


def test_pair_figures_do_not_depend_on_who_else_was_asked(
    answers: dict[str, LLMResponse],
) -> None:
    """Each pair's figures among four providers are those of the two asked alone."""
    among_four = {tuple(pair["providers"]): pair for pair in aggregate(answers).agreement}
    for left, right in combinations(answers, 2):
        (alone,) = aggregate({left: answers[left], right: answers[right]}).agreement
        assert among_four[left, right] == alone, (left, right)


def test_a_pair_joins_a_redirect_to_the_page_of_the_other_provider(
    answers: dict[str, LLMResponse],
) -> None:
    """OpenRouter and Vertex: Vertex's ruby-lang.org link joins the news page by domain only."""
    (pair,) = aggregate({v: answers[v] for v in ("openrouter", "vertex")}).agreement
    assert (pair["shared_urls"], pair["url_jaccard"]) == (0, 0.0)
    assert pair["domain_joins"] == 1


def test_a_provider_error_adds_nothing(answers: dict[str, LLMResponse]) -> None:
    """OpenAI failed: the aggregate is the other three's, its redirects join OpenRouter's page."""
    failed = ProviderTransientError("server error", status_code=500, vendor="openai")
    outcomes: dict[str, LLMResponse | RouterError] = {**answers, "openai": failed}
    result = aggregate(outcomes)
    assert result.providers == ["openrouter", "gemini", "vertex"]
    assert result == aggregate({v: a for v, a in answers.items() if v != "openai"})
    assert all("openai" not in e["ranks"] for e in result.entries)
    assert entry_of(outcomes, RELEASE_NEWS)["providers_cited"] == ["openrouter", "gemini", "vertex"]


def test_a_required_failure_adds_nothing(answers: dict[str, LLMResponse]) -> None:
    """Gemini answered without searching: REQUIRED rejects it, and the aggregate leaves it out."""
    unsearched = read("gemini", UNSEARCHED)
    with pytest.raises(GroundingRequiredFailedError) as raised:
        require_grounding(REQUIRED_GEMINI, unsearched)
    assert raised.value.reason == "not_invoked"
    assert raised.value.response is unsearched  # the error keeps the rejected answer
    others = {v: a for v, a in answers.items() if v != "gemini"}
    result = aggregate({**answers, "gemini": raised.value})
    assert result.providers == ["openai", "openrouter", "vertex"]
    assert result == aggregate(others)
    assert all("gemini" not in pair["providers"] for pair in result.agreement)
