"""The least any Python extractor must do per source: the floor the extraction bench reads against.

For each source a reply names (OpenAI ``web_search_call`` sources and ``url_citation``
annotations, Chat Completions ``url_citation`` annotations, Gemini/Vertex grounding chunks), it
splits the URL with ``urllib.parse.urlsplit``, takes the last two host labels as the domain
(memoised by host), and builds the citation dict with a shallow copy of the provider object.
Nothing else: no canonical URL, no tracking parameters, no Public Suffix List, no redirect
handling, no source type, no deduplication, no spans, no bounds on ``raw``. Whatever the real
extractor costs above this is the price of those rules; what this costs is out of any
extractor's reach.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

__all__ = ["FLOORS"]

_domains: dict[str, str] = {}


def _citation(url: object, title: object, raw: dict[str, Any], rank: int) -> dict[str, Any]:
    host = (urlsplit(url).hostname or "") if isinstance(url, str) else ""
    domain = _domains.get(host)
    if domain is None:
        domain = _domains[host] = ".".join(host.split(".")[-2:])
    return {
        "provider": "floor",
        "url": url,
        "source_domain": domain,
        "title": title.strip() if isinstance(title, str) else None,
        "snippet": None,
        "source_type": "web",
        "rank": rank,
        "raw": dict(raw),
        "spans": [],
        "cited": False,
    }


def _dicts(value: object) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def openai_floor(body: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for item in _dicts(body.get("output")):
        action = item.get("action")
        if isinstance(action, dict):
            for source in _dicts(action.get("sources")):
                found.append(_citation(source.get("url"), None, source, len(found) + 1))
        for part in _dicts(item.get("content")):
            for note in _dicts(part.get("annotations")):
                if note.get("type") == "url_citation":
                    found.append(
                        _citation(note.get("url"), note.get("title"), note, len(found) + 1)
                    )
    for choice in _dicts(body.get("choices")):
        message = choice.get("message")
        for note in _dicts(message.get("annotations") if isinstance(message, dict) else None):
            cited = note.get("url_citation")
            if isinstance(cited, dict):
                found.append(_citation(cited.get("url"), cited.get("title"), cited, len(found) + 1))
    return found


def vertex_floor(body: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for candidate in _dicts(body.get("candidates")):
        grounding = candidate.get("groundingMetadata")
        if not isinstance(grounding, dict):
            continue
        for chunk in _dicts(grounding.get("groundingChunks")):
            web = chunk.get("web") or chunk.get("retrievedContext")
            if isinstance(web, dict):
                found.append(_citation(web.get("uri"), web.get("title"), chunk, len(found) + 1))
    return found


FLOORS = {"openai": openai_floor, "vertex": vertex_floor}
