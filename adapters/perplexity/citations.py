"""Citations and grounding evidence of a Perplexity Sonar reply (pure; never raises).

A reply (a Chat Completions body, as a dict or an SDK object) lists its sources at the top
level: ``search_results`` (``title, url, date, last_updated, snippet, source``) when present,
else ``citations``, a bare list of URL strings in the same order (provider-quirks section 4: a
2026 body came without ``search_results``). The answer text cites them with ``[n]`` markers,
1-based positions in that list; not every position is cited. A reasoning model's leading
``<think>`` block is not answer text (:mod:`adapters.perplexity.reasoning`): the answer, its
markers and their spans start after it, and the reasoning is kept apart.

- Every source is a citation, ranked by its position (``rank`` = n); a position that has a
  search result reads its title and snippet from it, one beyond them its bare URL.
- Each ``[n]`` marker is a span of source n: the character offsets of the marker itself in the
  answer, as OpenAI's annotations cover their inline marker. A cited source has ``cited=True``
  and its search-result snippet as ``cited_text`` (the passage the answer quotes it for).
- ``location`` is ``{"type": "search_result", "search_result_index": n - 1}``.
- Each marker is also one attribution (``attributions``): its span, the source it names (after
  duplicate URLs merged) and that position's own snippet and location.
- A marker pointing past the list is left out, and the warning says which ones.

``grounded_effective``: the reply carries search results or citations (Perplexity always
searches unless told not to, but a reply can carry none). The search count is
``usage.num_search_queries`` when present, else one for a reply that shows a search; Perplexity
does not report its queries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.perplexity.reasoning import split_reasoning
from router.citations.attributions import Mark
from router.citations.build import CitationCollector
from router.types import Attribution, Citation, Location, Span, Vendor

__all__ = ["PerplexityExtraction", "answer_text", "read_perplexity_reply", "sources_of"]

_MARKER = re.compile(r"\[(\d{1,4})\]")
_SHOWN_MARKERS = 10


@dataclass(frozen=True, slots=True)
class PerplexityExtraction:
    """Everything read from one reply."""

    content: str
    citations: list[Citation]
    grounded_effective: bool
    tool_call_count: int
    sources_seen: int
    warnings: list[str] = field(default_factory=list)
    reasoning: str | None = None
    attributions: list[Attribution] = field(default_factory=list)
    """One per ``[n]`` marker of a listed source, in answer order."""


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def answer_text(body: Mapping[str, Any]) -> str:
    """The first choice's message content (a stream's final body carries it the same way)."""
    for choice in _list(body.get("choices")):
        message = _mapping(_mapping(choice).get("message"))
        content = message.get("content")
        return content if isinstance(content, str) else ""
    return ""


def sources_of(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The reply's sources, in marker order: a search result where there is one, else
    ``{"url": citation}`` for a bare citation URL; entries that name no URL are ``{}``."""
    results = _list(body.get("search_results"))
    citations = _list(body.get("citations"))
    sources: list[dict[str, Any]] = []
    for position in range(max(len(results), len(citations))):
        result = _mapping(results[position]) if position < len(results) else {}
        if not isinstance(result.get("url"), str) and position < len(citations):
            url = citations[position]
            result = {**result, "url": url} if isinstance(url, str) else result
        sources.append(result)
    return sources


def _markers(content: str, count: int) -> tuple[dict[int, list[Span]], list[int]]:
    """Spans per 0-based source position, and the markers that point past the list."""
    spans: dict[int, list[Span]] = {}
    stray: list[int] = []
    for match in _MARKER.finditer(content):
        number = int(match[1])
        if 1 <= number <= count:
            start, end = match.span()
            spans.setdefault(number - 1, []).append({"start": start, "end": end, "text": match[0]})
        else:
            stray.append(number)
    return spans, stray


def read_perplexity_reply(
    body: Mapping[str, Any], vendor: Vendor = "perplexity"
) -> PerplexityExtraction:
    """Answer text, citations and grounding evidence of one reply body."""
    reasoning, content = split_reasoning(answer_text(body))
    sources = sources_of(body)
    spans, stray = _markers(content, len(sources))
    collector = CitationCollector(vendor)
    dropped = 0
    for position, source in enumerate(sources):
        cited = position in spans
        snippet = _text(source.get("snippet"))
        url = source.get("url")
        location: Location = {"type": "search_result", "search_result_index": position}
        marks = [
            Mark(span["start"], span["end"], span["text"], snippet, location)
            for span in spans.get(position, ())
        ]
        kept = collector.add(
            url if isinstance(url, str) else None,
            title=_text(source.get("title")),
            snippet=snippet,
            rank=position + 1,
            raw=source,
            spans=spans.get(position, []),
            cited=cited,
            cited_text=snippet if cited else None,
            location=location,
            origin="search_results" if "title" in source else "citations",
            marks=marks,
        )
        dropped += not kept
    citations = collector.citations()
    warnings: list[str] = []
    if stray:
        shown = ", ".join(f"[{number}]" for number in stray[:_SHOWN_MARKERS])
        more = f" and {len(stray) - _SHOWN_MARKERS} more" if len(stray) > _SHOWN_MARKERS else ""
        warnings.append(
            f"[CITATIONS] Perplexity: {len(stray)} citation markers point past the "
            f"{len(sources)} sources of the reply: {shown}{more}"
        )
    grounded = bool(sources)
    searches = _mapping(body.get("usage")).get("num_search_queries")
    tool_calls = searches if type(searches) is int and searches >= 0 else int(grounded)
    if grounded and not citations:
        warnings.append(
            f"[CITATIONS] Perplexity: {len(sources)} sources but 0 citations extracted "
            f"({dropped} named no usable URL)"
        )
    return PerplexityExtraction(
        content=content,
        citations=citations,
        grounded_effective=grounded,
        tool_call_count=tool_calls,
        sources_seen=len(sources),
        warnings=warnings,
        reasoning=reasoning,
        attributions=collector.attributions(),
    )
