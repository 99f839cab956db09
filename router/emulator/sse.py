"""Server-sent event framing as each provider does it.

OpenAI and Anthropic name every event and end lines with LF; Vertex (``alt=sse``) sends bare
``data:`` lines ending in CRLF, as the recorded streams show; Chat Completions streams
(Perplexity, OpenRouter) send bare ``data:`` lines ending in LF.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from router.emulator.reply import google_json, openai_json

__all__ = ["anthropic_event", "data_frame", "openai_event", "vertex_frame"]


def openai_event(kind: str, data: str) -> bytes:
    """One OpenAI Responses stream event: its type, then its JSON data."""
    return f"event: {kind}\ndata: {data}\n\n".encode()


def anthropic_event(kind: str, data: str) -> bytes:
    """One Anthropic Messages stream event: named like OpenAI's, lines ending in LF."""
    return f"event: {kind}\ndata: {data}\n\n".encode()


def vertex_frame(payload: Mapping[str, Any]) -> bytes:
    """One Vertex ``streamGenerateContent?alt=sse`` frame."""
    return f"data: {google_json(payload)}\r\n\r\n".encode()


def data_frame(payload: Mapping[str, Any]) -> bytes:
    """One Chat Completions stream event: a bare ``data:`` line of compact JSON."""
    return f"data: {openai_json(payload)}\n\n".encode()
