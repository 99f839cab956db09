"""The one check of the uniform citation schema (DESIGN.md section 3) every suite uses.

``citation_problems`` lists what is wrong with a citation, so a failing test says which rule
broke for which citation; an empty list means the citation satisfies the schema.
"""

from __future__ import annotations

import json
import re
from typing import Any, get_args, get_type_hints

from adapters.registry import vendors
from router.types import Citation, Location, LocationType, SourceType

__all__ = [
    "CITATION_KEYS",
    "CITED_TEXT_LIMIT",
    "SNIPPET_LIMIT",
    "citation_problems",
    "domain_citation",
    "golden_row",
]

CITATION_KEYS = frozenset(Citation.__annotations__)
SNIPPET_LIMIT = 200
CITED_TEXT_LIMIT = 500
_SOURCE_TYPES = frozenset(get_args(SourceType))
_LOCATION_TYPES = frozenset(get_args(LocationType))
_LOCATION_HINTS = get_type_hints(Location)
_LOCATION_INDEX_KEYS = frozenset(key for key, hint in _LOCATION_HINTS.items() if hint is int)
_PROVIDERS = frozenset(vendors())
# Cleaned text fields carry no control characters and no lone surrogates (not writable as UTF-8).
_UNCLEAN_TEXT = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_URL = re.compile(r"https?://[^\s\x00-\x1f\x7f]+\Z")


def domain_citation(domain: str, provider: str = "vertex") -> Citation:
    """A plain cited source on ``domain``, for tests that only count citations."""
    return {
        "provider": provider,  # type: ignore[typeddict-item]
        "url": f"https://{domain}/page",
        "source_domain": domain,
        "title": domain,
        "snippet": None,
        "source_type": "web",
        "rank": 1,
        "raw": {},
        "spans": [],
        "cited": True,
        "cited_text": None,
        "location": None,
    }


def citation_problems(citation: Any, content: str, *, provider: str | None = None) -> list[str]:
    """What is wrong with ``citation`` under the schema; ``provider`` pins the expected vendor.

    Spans must be offsets into ``content`` whose text is ``content[start:end]``.
    """
    if not isinstance(citation, dict):
        return [f"not a dict: {type(citation).__name__}"]
    if set(citation) != CITATION_KEYS:
        return [f"keys {sorted(citation)}"]
    problems: list[str] = []
    expected_providers = {provider} if provider is not None else _PROVIDERS
    if citation["provider"] not in expected_providers:
        problems.append(f"provider {citation['provider']!r}")
    url = citation["url"]
    if url is not None and not (isinstance(url, str) and _URL.match(url)):
        problems.append(f"url {url!r}")
    domain = citation["source_domain"]
    if not isinstance(domain, str) or not domain or _UNCLEAN_TEXT.search(domain) or " " in domain:
        problems.append(f"source_domain {domain!r}")
    for key in ("title", "snippet", "cited_text"):
        value = citation[key]
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip() or _UNCLEAN_TEXT.search(value):
            problems.append(f"{key} {value!r:.80}")
    snippet = citation["snippet"]
    if (
        isinstance(snippet, str)
        and len(snippet) > SNIPPET_LIMIT
        and (len(snippet) > SNIPPET_LIMIT + 1 or not snippet.endswith("…"))
    ):
        problems.append(f"snippet longer than {SNIPPET_LIMIT} characters and a closing '…'")
    cited_text = citation["cited_text"]
    if isinstance(cited_text, str) and len(cited_text) > CITED_TEXT_LIMIT:
        problems.append(f"cited_text longer than {CITED_TEXT_LIMIT} characters")
    problems.extend(_location_problems(citation["location"]))
    if citation["source_type"] not in _SOURCE_TYPES:
        problems.append(f"source_type {citation['source_type']!r}")
    rank = citation["rank"]
    if rank is not None and not (type(rank) is int and rank >= 1):
        problems.append(f"rank {rank!r}")
    problems.extend(_raw_problems(citation["raw"]))
    if type(citation["cited"]) is not bool:
        problems.append(f"cited {citation['cited']!r}")
    problems.extend(_span_problems(citation["spans"], content))
    return problems


def _location_problems(location: Any) -> list[str]:
    if location is None:
        return []
    if not isinstance(location, dict) or location.get("type") not in _LOCATION_TYPES:
        return [f"location {location!r:.80}"]
    problems = [f"location key {key!r}" for key in location if key not in _LOCATION_HINTS]
    for key, value in location.items():
        if key in _LOCATION_INDEX_KEYS and not (type(value) is int and value >= 0):
            problems.append(f"location {key} {value!r}")
        elif isinstance(value, str) and _UNCLEAN_TEXT.search(value):
            problems.append(f"location {key} {value!r:.60}")
    return problems


def _raw_problems(raw: Any) -> list[str]:
    if not isinstance(raw, dict):
        return ["raw is not a dict"]
    try:
        json.dumps(raw, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return [f"raw is not JSON-able: {exc}"]
    return []


def _span_problems(spans: Any, content: str) -> list[str]:
    if not isinstance(spans, list):
        return ["spans is not a list"]
    problems: list[str] = []
    for span in spans:
        if not isinstance(span, dict) or set(span) != {"start", "end", "text"}:
            problems.append(f"span {span!r}")
            continue
        start, end = span["start"], span["end"]
        if not (type(start) is int and type(end) is int and 0 <= start < end <= len(content)):
            problems.append(f"span offsets {start!r}..{end!r} outside 0..{len(content)}")
        elif span["text"] != content[start:end]:
            problems.append(f"span text {span['text']!r:.60} is not content[{start}:{end}]")
    return problems


def golden_row(citation: Any, normalized: bool) -> dict[str, Any]:
    """The fields of ``citation`` an expectation file checks; span counts only when the body's
    text was rewritten (``normalized``), since its offsets then point into other text."""
    row: dict[str, Any] = {
        "rank": citation["rank"],
        "url": citation["url"],
        "source_domain": citation["source_domain"],
        "title": citation["title"],
        "source_type": citation["source_type"],
        "cited": citation["cited"],
        "redirect": bool(citation["raw"].get("redirect")),
        "redirect_only": bool(citation["raw"].get("redirect_only")),
        "cited_text": citation["cited_text"],
        "location": citation["location"],
    }
    if normalized:
        row["span_count"] = len(citation["spans"])
    else:
        row["spans"] = [[span["start"], span["end"], span["text"]] for span in citation["spans"]]
    return row
