"""An OpenAI reply mapped to the router's :class:`AdapterResult` (pure): the registry's mapper.

The OpenAI reply shape (Responses and Chat Completions bodies) is read by
:func:`adapters.openai_compatible.reply.map_compatible_reply`, which OpenRouter's package runs
under its own name; this is that mapping under OpenAI's. It raises ``ResponseParseError`` for a
reply ``route()`` cannot use (no answer, a refusal, JSON that does not parse); with
``strict=False`` it never raises and says what was wrong in ``warnings``.
"""

from __future__ import annotations

from adapters.base import AdapterResult
from adapters.openai_compatible.errors import OPENAI
from adapters.openai_compatible.reply import map_compatible_reply
from router.types import LLMRequest

__all__ = ["map_openai_reply"]


def map_openai_reply(
    response: object, request: LLMRequest, *, strict: bool = True
) -> AdapterResult:
    """The :class:`AdapterResult` of one OpenAI reply to ``request``."""
    return map_compatible_reply(response, request, strict=strict, service=OPENAI)
