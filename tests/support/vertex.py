"""Shared pieces of the Vertex adapter tests: the recorded generateContent bodies and the
Citation schema check every extracted citation must pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

from router.types import Citation, SourceType
from support.recorded import RECORDED_DIR, load_final_body, recorded_files

__all__ = [
    "EXPECTED_DIR",
    "GENERATE_CONTENT_FILES",
    "INTERACTIONS_FILES",
    "citation_problems",
    "is_normalized",
]

EXPECTED_DIR = RECORDED_DIR.parent / "expected" / "vertex"

# Every Gemini/Vertex generateContent body (a stream counts as its merged final state). The
# Gemini Interactions bodies are another API: they have no candidates.
GENERATE_CONTENT_FILES: list[Path] = [
    path for path in recorded_files() if load_final_body(path).get("candidates")
]
INTERACTIONS_FILES: list[Path] = recorded_files("**/gemini_interactions_*")

_CITATION_KEYS = frozenset(Citation.__annotations__)
_SOURCE_TYPES = frozenset(get_args(SourceType))


def is_normalized(path: Path) -> bool:
    """Whether the recording rewrote the body's text (offsets must not be checked then)."""
    return path.name.endswith(".normalized.json")


def citation_problems(citation: Any, content: str) -> list[str]:
    """What is wrong with a citation under the schema of DESIGN.md section 3 (empty if all)."""
    if not isinstance(citation, dict):
        return [f"not a dict: {type(citation).__name__}"]
    problems: list[str] = []
    if set(citation) != _CITATION_KEYS:
        problems.append(f"keys {sorted(citation)}")
        return problems
    if citation["provider"] != "vertex":
        problems.append(f"provider {citation['provider']!r}")
    url = citation["url"]
    if url is not None and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
        problems.append(f"url {url!r}")
    if not isinstance(citation["source_domain"], str) or not citation["source_domain"]:
        problems.append(f"source_domain {citation['source_domain']!r}")
    for key in ("title", "snippet"):
        if citation[key] is not None and not (isinstance(citation[key], str) and citation[key]):
            problems.append(f"{key} {citation[key]!r}")
    if citation["snippet"] is not None and len(citation["snippet"]) > 200:
        problems.append("snippet longer than 200 characters")
    if citation["source_type"] not in _SOURCE_TYPES:
        problems.append(f"source_type {citation['source_type']!r}")
    rank = citation["rank"]
    if rank is not None and not (type(rank) is int and rank >= 1):
        problems.append(f"rank {rank!r}")
    if not isinstance(citation["raw"], dict):
        problems.append("raw is not a dict")
    else:
        try:
            json.dumps(citation["raw"], allow_nan=False)
        except (TypeError, ValueError) as exc:
            problems.append(f"raw is not JSON-able: {exc}")
    if type(citation["cited"]) is not bool:
        problems.append(f"cited {citation['cited']!r}")
    if not isinstance(citation["spans"], list):
        problems.append("spans is not a list")
        return problems
    for span in citation["spans"]:
        if not isinstance(span, dict) or set(span) != {"start", "end", "text"}:
            problems.append(f"span {span!r}")
            continue
        start, end = span["start"], span["end"]
        if not (type(start) is int and type(end) is int and 0 <= start < end <= len(content)):
            problems.append(f"span offsets {start}..{end} outside 0..{len(content)}")
        elif span["text"] != content[start:end]:
            problems.append(f"span text {span['text']!r} is not content[{start}:{end}]")
    return problems
