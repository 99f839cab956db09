"""Long provider values stay out of the citation caches, whose keys live as long as the entry."""

from __future__ import annotations

from router.citations import build, dedupe_citations, make_citation, normalize_url
from router.citations.hosts import host_of

LONG_TITLE = "T" * 1_000_000
LONG_URL = "https://example.com/" + "p" * 100_000


def test_long_title_and_url_are_derived_uncached() -> None:
    """A citation with a 1 MB title or a 100 KB URL adds no entry to the derivation cache."""
    before = build._derive_cached.cache_info().currsize
    assert make_citation(provider="openai", url="https://example.com/a", title=LONG_TITLE)
    assert make_citation(provider="openai", url=LONG_URL, title="Example")
    assert build._derive_cached.cache_info().currsize == before


def test_long_url_is_keyed_uncached() -> None:
    """Merging citations with a 100 KB URL adds no entry to the dedup-key cache."""
    citation = make_citation(provider="openai", url=LONG_URL, title="Example")
    assert citation is not None
    before = build._dedup_key_cached.cache_info().currsize
    assert len(dedupe_citations([citation, citation])) == 1
    assert build._dedup_key_cached.cache_info().currsize == before


def test_absurdly_long_authority_is_not_a_url() -> None:
    """No usable host is 1,000 characters long: such a URL, or host, is refused outright."""
    host = "a" * 2_000 + ".example.com"
    assert normalize_url(f"https://{host}/path") is None
    assert host_of(f"https://{host}/path") is None
    assert normalize_url(f"https://{'a' * 60}.example.com/path") is not None
