"""The OpenRouter stream reader: OpenAI's Chat Completions chunks, under OpenRouter's name.

:class:`adapters.openai_compatible.stream.ChatStreamReader` reads the chunks (``delta.content``,
``delta.annotations``); this reader names OpenRouter's service in its citations and maps the
final body with :func:`adapters.openrouter.reply.map_openrouter_reply`.
"""

from __future__ import annotations

from adapters.openai_compatible.stream import ChatStreamReader
from adapters.openrouter.errors import OPENROUTER
from adapters.openrouter.reply import map_openrouter_reply

__all__ = ["OpenRouterStreamReader"]


class OpenRouterStreamReader(ChatStreamReader):
    """Reads one OpenRouter chat completion stream: citations name "openrouter"."""

    label = "OpenRouter"
    vendor = "openrouter"
    _service = OPENROUTER
    _mapper_of_service = staticmethod(map_openrouter_reply)
