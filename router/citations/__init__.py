"""The provider-independent citation toolkit every adapter builds its citations with.

Canonical URLs and dedup keys (``urls``), registrable domains (``domains``), source types
(``source_types``), the uniform citation and its merging (``build``), and the optional,
SSRF-guarded redirect resolver (``redirects``). Everything except the resolver is offline.
"""

from router.citations.build import (
    DOCUMENT_PREFIX,
    dedupe_citations,
    document_domain,
    make_citation,
    sanitize_text,
)
from router.citations.domains import looks_like_domain, public_suffix, registrable_domain
from router.citations.redirects import RedirectResolver
from router.citations.source_types import classify_source_type
from router.citations.urls import (
    REDIRECTORS,
    TRACKING_PARAMETERS,
    TRACKING_PREFIXES,
    Redirector,
    dedup_key,
    is_redirect_url,
    normalize_url,
    unwrap_redirect,
)

__all__ = [
    "DOCUMENT_PREFIX",
    "REDIRECTORS",
    "TRACKING_PARAMETERS",
    "TRACKING_PREFIXES",
    "RedirectResolver",
    "Redirector",
    "classify_source_type",
    "dedup_key",
    "dedupe_citations",
    "document_domain",
    "is_redirect_url",
    "looks_like_domain",
    "make_citation",
    "normalize_url",
    "public_suffix",
    "registrable_domain",
    "sanitize_text",
    "unwrap_redirect",
]
