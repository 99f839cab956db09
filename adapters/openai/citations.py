"""OpenAI's citations and grounding evidence, under the names DESIGN.md gives them (pure).

The reading itself is the OpenAI reply shape's (:mod:`adapters.openai_compatible.citations`:
Responses bodies, Chat Completions bodies, SDK objects or dicts), shared with OpenRouter, whose
chat completions come in the same shape; here it runs under OpenAI's name.
"""

from __future__ import annotations

from adapters.openai_compatible.citations import (
    OpenAIExtraction,
    OpenAIGrounding,
    read_openai_citations,
    read_openai_reply,
)
from router.types import Citation

__all__ = [
    "OpenAIExtraction",
    "OpenAIGrounding",
    "_extract_openai_citations",
    "extract_openai_grounding",
    "read_openai_reply",
]


def _extract_openai_citations(response: object) -> list[Citation]:
    """The uniform citations of an OpenAI reply (SDK object or dict), ordered by rank."""
    return read_openai_citations(response)


def extract_openai_grounding(response: object) -> OpenAIGrounding:
    """Tool calls, search queries, ``grounded_effective`` and the ``[CITATIONS]`` warning."""
    return read_openai_reply(response).grounding
