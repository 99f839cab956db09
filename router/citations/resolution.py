"""Redirect resolution applied to finished citations, whichever provider made them.

The router asks the optional ``RedirectResolver`` about the citations whose ``url`` is still a
redirect link (``raw["redirect"]``: Vertex's ``grounding-api-redirect``, ``t.co``, ``lnkd.in``,
``bit.ly``, ... in any provider's reply) and hands the answers here. Each resolved citation is
derived again with the target as its resolved URL (DESIGN.md section 3, step 3), so the target is
normalised again (tracking parameters stripped), the citation's ``url``, ``source_domain`` and
``source_type`` become the end site's, and the redirect flags leave ``raw``. Citations that now
name the same source are merged as ``dedupe_citations`` merges (earliest rank kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from router.citations.build import citation_key, dedupe_citations
from router.citations.derive import NOT_REDIRECT, derive
from router.logging import get_logger, grounding_debug_enabled
from router.types import Attribution, Citation

__all__ = ["redirect_link_urls", "with_resolved_redirects"]

_log = get_logger(__name__)
_REDIRECT_FLAGS = ("redirect", "redirect_only")


def redirect_link_urls(citations: Iterable[Citation]) -> list[str]:
    """The distinct URLs of the citations whose ``url`` is a redirect link, in order."""
    found: dict[str, None] = {}
    for citation in citations:
        url = citation["url"]
        if url is not None and citation["raw"].get("redirect") is True:
            found[url] = None
    return list(found)


def with_resolved_redirects(
    citations: list[Citation],
    targets: Mapping[str, str],
    attributions: Sequence[Attribution] = (),
) -> list[Citation]:
    """``citations`` with each redirect link in ``targets`` replaced by its target.

    Two links that lead to one page merge into one citation: the ``attributions`` of the
    reply (mutated in place) are pointed at the citation their source is now part of.

    ``targets`` maps a citation's ``url`` to where it leads (what ``RedirectResolver`` answers).
    The citations given are not mutated; when nothing resolves, they are returned as they are.
    """
    if not targets:
        return citations
    changed = 0
    updated: list[Citation] = []
    for citation in citations:
        url = citation["url"]
        target = targets.get(url) if url is not None else None
        found = (
            derive(
                url,
                citation["title"],
                nested_urls=(),
                resolved_url=target,
                domain_hint=None,
                source_type=None,
            )
            if target is not None
            else None
        )
        if found is None or found.redirect != NOT_REDIRECT or not found.domain:
            updated.append(citation)
            continue
        resolved = citation.copy()
        resolved["url"] = found.url
        resolved["source_domain"] = found.domain
        resolved["source_type"] = found.source_type
        resolved["raw"] = {k: v for k, v in citation["raw"].items() if k not in _REDIRECT_FLAGS}
        updated.append(resolved)
        changed += 1
    if not changed:
        return citations
    if grounding_debug_enabled():
        _log.debug("citation_redirects_resolved", resolved=changed, citations=len(citations))
    merged = dedupe_citations(updated)
    if attributions:
        index_of = {citation_key(citation): index for index, citation in enumerate(merged)}
        moved = [index_of.get(citation_key(citation)) for citation in updated]
        for each in attributions:
            old = each["citation"]
            new = moved[old] if 0 <= old < len(moved) else None
            if new is not None:
                each["citation"] = new
    return merged
