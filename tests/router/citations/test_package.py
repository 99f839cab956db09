"""The public names of router.citations."""

from __future__ import annotations

import router.citations


def test_public_names_are_exact() -> None:
    """router.citations.__all__ lists exactly the toolkit's public names, and each exists."""
    expected = {
        "REDIRECTORS",
        "TRACKING_PARAMETERS",
        "TRACKING_PREFIXES",
        "RedirectResolver",
        "Redirector",
        "classify_source_type",
        "dedup_key",
        "dedupe_citations",
        "is_redirect_url",
        "looks_like_domain",
        "make_citation",
        "normalize_url",
        "public_suffix",
        "registrable_domain",
        "sanitize_text",
        "unwrap_redirect",
    }
    assert set(router.citations.__all__) == expected
    assert len(router.citations.__all__) == len(expected)
    for name in expected:
        assert hasattr(router.citations, name), name
