"""A reply the emulator sends, and the JSON dialect each provider writes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["JSON_CONTENT_TYPE", "SSE_CONTENT_TYPE", "Reply", "google_json", "openai_json"]

JSON_CONTENT_TYPE = "application/json"
SSE_CONTENT_TYPE = "text/event-stream"

# Real bodies are indented, but json's indenting encoder is pure Python and several times
# slower than the C one; whitespace is the one thing no client reads, so bodies go compact.


@dataclass(frozen=True)
class Reply:
    """A complete HTTP reply: status, body bytes, content type and extra headers.

    With ``raw``, ``body`` is the whole HTTP message as it goes on the wire (status line and
    headers included), written as it is and followed by closing the connection: how a broken
    proxy's malformed replies are served.
    """

    status: int
    body: bytes
    content_type: str = JSON_CONTENT_TYPE
    headers: Mapping[str, str] = field(default_factory=dict)
    raw: bool = False


# json.dumps builds a new encoder on every call unless all its options are defaults; the
# emulator encodes tens of thousands of small values per second, so it keeps one of each.
_OPENAI_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_GOOGLE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ": "))


def openai_json(payload: Any) -> str:
    """JSON as OpenAI writes its stream events: UTF-8 text, no spaces."""
    return _OPENAI_ENCODER.encode(payload)


def google_json(payload: Any) -> str:
    """JSON as Google writes its stream frames: ``": "`` but ``","``, HTML characters escaped.

    Google escapes ``<``, ``>`` and ``&`` inside strings, as every recorded Vertex body shows
    (``\\u003cstyle\\u003e``); outside strings they cannot occur, so replacing them is safe.
    """
    text = _GOOGLE_ENCODER.encode(payload)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
