"""The recorded OpenAI bodies, their SDK-object twins, and the citation schema check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from router.types import Citation
from support.citations import citation_problems as check_citation
from support.recorded import RECORDED_DIR, load_final_body, recorded_files, reply_kind

__all__ = [
    "EXPECTED_DIR",
    "OPENAI_FILES",
    "citation_problems",
    "sdk_object",
]

EXPECTED_DIR = RECORDED_DIR.parent / "expected" / "openai"


def _is_openai(path: Path) -> bool:
    return reply_kind(load_final_body(path)) in ("responses", "chat")


OPENAI_FILES: list[Path] = [path for path in recorded_files() if _is_openai(path)]
"""Responses bodies (JSON and streams' final state), Chat Completions and OpenRouter bodies."""


def sdk_object(body: dict[str, Any]) -> Any:
    """The SDK object the ``openai`` client would build from ``body`` (leniently, as it does)."""
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    return construct_type(type_=ChatCompletion if "choices" in body else Response, value=body)


def citation_problems(citation: Citation, content: str) -> list[str]:
    """What is wrong with ``citation`` under the uniform schema (empty when nothing is)."""
    return check_citation(citation, content, provider="openai")
