"""A provider request as the emulator needs it, whichever wire protocol it came in on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Ask", "BadRequest", "JsonFormat"]


class BadRequest(Exception):
    """The request is one the real service would reject with HTTP 400."""

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code


@dataclass(frozen=True)
class JsonFormat:
    """A JSON answer was asked for, with this schema (None: any JSON object)."""

    schema: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Ask:
    """What one provider request asks for."""

    api: str
    """The name of the API the request came in on (its row's ``name``)."""
    model: str
    prompt: str
    """The last user message, verbatim (directives included)."""
    question: str
    """The last user message without emulator directives: what gets answered."""
    stream: bool = False
    search: bool = False
    """A search tool was offered and not switched off."""
    include_sources: bool = False
    """OpenAI ``include`` asked for ``web_search_call.action.sources``."""
    json_format: JsonFormat | None = None
    country: str | None = None
    """ISO-2 country of the user's location, when the request carries one."""
    echo: Mapping[str, Any] = field(default_factory=dict)
    """Request fields the reply repeats (OpenAI echoes its request parameters; Anthropic's
    documents and system prompt, which shape its answer)."""
