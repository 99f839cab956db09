"""Gemini Developer API ``generateContent``: Vertex AI's body, less what only Vertex sends.

Requests come to ``/v1beta/models/{model}:generateContent`` (and ``/v1/``, google-genai 3.x's
default) with the API key in ``x-goog-api-key`` (or a ``key`` query parameter). The request
and reply bodies are Vertex AI's (see ``vertex``), with the differences the recorded Gemini API
bodies show: no ``web.domain`` on any grounding chunk (provider-quirks: it appears only on
Vertex), no ``createTime`` and no ``usageMetadata.trafficType``. Streams carry the same
``groundingMetadata: {}`` on every chunk and the populated metadata on the last, framed in CRLF.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from router.emulator.apis import vertex
from router.emulator.catalogue import Answer
from router.emulator.faults import FaultKind
from router.emulator.wire import Ask

__all__ = ["PATH", "authorised", "build_response", "read_request", "stream_chunks"]

PATH = re.compile(
    r"^/(?:v1|v1beta)/models/(?P<model>[^/:]+):"
    r"(?P<method>generateContent|streamGenerateContent)$"
)
_VERTEX_ONLY_KEYS = ("createTime",)


def authorised(headers: Mapping[str, str], query: Mapping[str, str]) -> bool:
    """Whether the request carries an API key, as a header or as ``?key=``."""
    return bool(headers.get("x-goog-api-key", "").strip() or query.get("key", "").strip())


def read_request(body: Mapping[str, Any], *, model: str, stream: bool) -> Ask:
    """The :class:`Ask` of a generateContent request (the body is Vertex AI's)."""
    return replace(vertex.read_request(body, model=model, stream=stream), api="gemini")


def build_response(
    ask: Ask, answer: Answer, *, fault: FaultKind | None, serial: str
) -> dict[str, Any]:
    """The final generateContent body for ``ask``, as the Gemini API writes it."""
    body = vertex.build_response(ask, answer, fault=fault, serial=serial, create_time="")
    for key in _VERTEX_ONLY_KEYS:
        body.pop(key, None)
    body["usageMetadata"].pop("trafficType", None)
    for candidate in body["candidates"]:
        for chunk in candidate.get("groundingMetadata", {}).get("groundingChunks", []):
            if isinstance(chunk.get("web"), dict):
                chunk["web"].pop("domain", None)
    return body


def stream_chunks(body: Mapping[str, Any], *, serial: str) -> list[dict[str, Any]]:
    """The ``alt=sse`` chunks of ``body``: Vertex AI's chunking, without ``trafficType``."""
    chunks = vertex.stream_chunks(body, serial=serial)
    for chunk in chunks:
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            usage.pop("trafficType", None)
            if not usage:
                del chunk["usageMetadata"]
    return chunks
