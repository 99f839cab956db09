"""Long provider values stay out of the citation caches, whose keys live as long as the entry."""

from __future__ import annotations

import gc
import tracemalloc

from router.citations import dedupe_citations, make_citation, normalize_url
from router.citations.hosts import host_of

LONG_TITLE = "T" * 1_000_000
LONG_URL = "https://example.com/" + "p" * 100_000


def test_long_titles_and_urls_are_not_kept_after_use() -> None:
    """Citations built from 1 MB titles and 100 KB URLs leave nothing of them in any cache."""
    make_citation(provider="openai", url="https://example.com/warm", title="Example")  # warm-up
    gc.collect()
    tracemalloc.start()
    try:
        for number in range(10):
            title = LONG_TITLE + str(number)
            url = f"{LONG_URL}{number}"
            built = [
                make_citation(provider="openai", url=f"https://example.com/{number}", title=title),
                make_citation(provider="openai", url=url, title="Example"),
            ]
            assert all(built)
            assert len(dedupe_citations([c for c in built if c] * 2)) == 2
            del built, title, url
        gc.collect()
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert retained < 1_000_000  # ten 1 MB titles were seen: none of them stayed


def test_absurdly_long_authority_is_not_a_url() -> None:
    """No usable host is 1,000 characters long: such a URL, or host, is refused outright."""
    host = "a" * 2_000 + ".example.com"
    assert normalize_url(f"https://{host}/path") is None
    assert host_of(f"https://{host}/path") is None
    assert normalize_url(f"https://{'a' * 60}.example.com/path") is not None
