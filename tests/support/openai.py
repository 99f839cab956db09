"""The recorded OpenAI bodies, their SDK-object twins, and the citation schema check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from router.types import Citation
from support.recorded import RECORDED_DIR, load_final_body, recorded_files

__all__ = [
    "EXPECTED_DIR",
    "OPENAI_FILES",
    "citation_problems",
    "is_normalized",
    "sdk_object",
]

EXPECTED_DIR = RECORDED_DIR.parent / "expected" / "openai"
SOURCE_TYPES = frozenset({"web", "doc", "news", "video", "unknown"})


def _is_openai(path: Path) -> bool:
    body = load_final_body(path)
    return "output" in body or "choices" in body


OPENAI_FILES: list[Path] = [path for path in recorded_files() if _is_openai(path)]
"""Responses bodies (JSON and streams' final state), Chat Completions and OpenRouter bodies."""


def is_normalized(path: Path) -> bool:
    """Whether the recording rewrote the body's text (offsets may not match it)."""
    return ".normalized." in path.name


def sdk_object(body: dict[str, Any]) -> Any:
    """The SDK object the ``openai`` client would build from ``body`` (leniently, as it does)."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    return construct_type(type_=ChatCompletion if "choices" in body else Response, value=body)


def citation_problems(citation: Citation, content: str) -> list[str]:
    """What is wrong with ``citation`` under the uniform schema (empty when nothing is)."""
    problems: list[str] = []
    if set(citation) != set(Citation.__annotations__):
        return [f"keys {sorted(citation)}"]
    if citation["provider"] != "openai":
        problems.append("provider")
    url = citation["url"]
    if url is not None and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
        problems.append(f"url {url!r}")
    if not isinstance(citation["source_domain"], str) or not citation["source_domain"]:
        problems.append("source_domain")
    for key in ("title", "snippet"):
        if citation[key] is not None and not (isinstance(citation[key], str) and citation[key]):
            problems.append(key)
    snippet = citation["snippet"]
    if isinstance(snippet, str) and len(snippet) > 200:
        problems.append("snippet longer than 200")
    if citation["source_type"] not in SOURCE_TYPES:
        problems.append("source_type")
    rank = citation["rank"]
    if rank is not None and (type(rank) is not int or rank < 1):
        problems.append("rank")
    if not isinstance(citation["raw"], dict) or type(citation["cited"]) is not bool:
        problems.append("raw or cited")
    for span in citation["spans"]:
        start, end = span["start"], span["end"]
        if set(span) != {"start", "end", "text"} or type(start) is not int or type(end) is not int:
            problems.append(f"span {span!r}")
        elif not 0 <= start < end <= len(content) or content[start:end] != span["text"]:
            problems.append(f"span {start}-{end} outside the content or not its text")
    return problems
