"""A reply the emulator sends, and the JSON dialect each provider writes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["JSON_CONTENT_TYPE", "SSE_CONTENT_TYPE", "Reply", "google_json", "openai_json"]

JSON_CONTENT_TYPE = "application/json"
SSE_CONTENT_TYPE = "text/event-stream"

# Google's JSON encoder escapes the HTML-significant characters inside strings, as every
# recorded Vertex body shows (``\u003cstyle\u003e``); outside strings they cannot occur.
_GOOGLE_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


@dataclass(frozen=True)
class Reply:
    """A complete HTTP reply: status, body bytes, content type and extra headers."""

    status: int
    body: bytes
    content_type: str = JSON_CONTENT_TYPE
    headers: Mapping[str, str] = field(default_factory=dict)


def openai_json(payload: Any, *, pretty: bool = False) -> str:
    """JSON as OpenAI writes it: UTF-8 text, indented bodies, compact stream events."""
    if pretty:
        return json.dumps(payload, ensure_ascii=False, indent=2)
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def google_json(payload: Any, *, pretty: bool = False) -> str:
    """JSON as Google writes it: indented bodies, ``", "``-less stream frames, HTML escapes."""
    if pretty:
        text = json.dumps(payload, ensure_ascii=False, indent=2)
    else:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ": "))
    return text.translate(_GOOGLE_ESCAPES)
