"""The OpenAI extractor under the name DESIGN.md gives it (``_extract_openai_citations``).

The provider lives in the :mod:`adapters.openai` package; this module only re-exports it.
"""

from adapters.openai.adapter import (
    OpenAIAdapter,
    OpenAIGrounding,
    _extract_openai_citations,
    extract_openai_grounding,
)

__all__ = [
    "OpenAIAdapter",
    "OpenAIGrounding",
    "_extract_openai_citations",
    "extract_openai_grounding",
]
