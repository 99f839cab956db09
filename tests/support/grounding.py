"""Hand-made responses for the grounding tests: an answer, its sources and where it cites them."""

from __future__ import annotations

from typing import Any

from router.types import Attribution, Citation, LLMResponse

__all__ = ["answer", "cite", "source"]


def source(domain: str, *, url: str | None = None, cited: bool = True) -> Citation:
    """A uniform citation of ``domain`` with no spans (attributions say where it is cited)."""
    return {
        "provider": "anthropic",
        "url": url if url is not None else f"https://{domain}/page",
        "source_domain": domain,
        "title": domain,
        "snippet": None,
        "source_type": "web",
        "rank": None,
        "raw": {},
        "spans": [],
        "cited": cited,
        "cited_text": None,
        "location": None,
    }


def cite(
    content: str,
    text: str,
    citation: int,
    passage: str | None = None,
    *,
    confidence: float | None = None,
    occurrence: int = 0,
) -> Attribution:
    """An attribution of ``text`` (its ``occurrence``-th appearance in ``content``)."""
    start = -1
    for _ in range(occurrence + 1):
        start = content.index(text, start + 1)
    return {
        "start": start,
        "end": start + len(text),
        "text": text,
        "citation": citation,
        "cited_text": passage,
        "location": None,
        "confidence": confidence,
    }


def answer(
    content: str,
    attributions: list[Attribution] | None = None,
    citations: list[Citation] | None = None,
    **fields: Any,
) -> LLMResponse:
    """An Anthropic-shaped response with ``content``, ``attributions`` and ``citations``."""
    return LLMResponse(
        vendor="anthropic",
        model="claude-sonnet-4-5",
        content=content,
        citations=citations if citations is not None else [source("example.org")],
        attributions=attributions or [],
        grounded_effective=True,
        **fields,
    )
