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
from router.emulator.apis.row import ErrorShapes, ProviderApi
from router.emulator.catalogue import Answer
from router.emulator.fault_kinds import FaultKind
from router.emulator.reply import Reply
from router.emulator.wire import Ask

__all__ = ["API", "PATH", "authorised", "build_response", "read_request", "stream_chunks"]

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


# -- errors: Google's shape, with the Gemini API's own key and quota answers ----------------

_KEY_INVALID = "API key not valid. Please pass a valid API key."
_NO_KEY = (
    "Method doesn't allow unregistered callers (callers without established identity). Please "
    "use API Key or other form of API consumer identity to call this API."
)


def _fault_reply(status: int, retry_after_s: float | None, model: str) -> Reply:
    """The Gemini API's own shapes: a bad key is a 400, a rate limit says its delay inside."""
    if status == 401:
        return vertex.google_error(
            400,
            _KEY_INVALID,
            details=[
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                },
                {
                    "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                    "locale": "en-US",
                    "message": _KEY_INVALID,
                },
            ],
        )
    if status == 429:
        delay = retry_after_s if retry_after_s is not None else 1.0
        return vertex.google_error(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            details=[
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            "generate_content_free_tier_requests",
                            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                        }
                    ],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{delay:g}s"},
            ],
        )
    return vertex.google_fault_reply(status, retry_after_s, model)


# -- the row ---------------------------------------------------------------------------------


def _synthesise(
    ask: Ask, answer: Answer, fault: FaultKind | None, serial: str, sse: bool
) -> list[bytes] | Reply:
    body = build_response(ask, answer, fault=fault, serial=serial)
    return vertex.google_delivery(ask, body, lambda b: stream_chunks(b, serial=serial), sse=sse)


API = ProviderApi(
    name="gemini",
    base_path="",
    match=vertex.google_match(PATH),
    claims_path=lambda path: path.startswith(("/v1beta/", "/v1/models/")),
    authorised=authorised,
    read_request=lambda body, endpoint: read_request(
        body, model=endpoint.model, stream=endpoint.stream
    ),
    synthesise=_synthesise,
    errors=ErrorShapes(
        fault=_fault_reply,
        bad_request=vertex.google_bad_request,
        unparseable_body=vertex.google_unparseable_body,
        missing_auth=lambda: vertex.google_error(403, _NO_KEY),
        not_found=vertex.google_not_found,
        proxy_page=vertex.GOOGLE_FRONT_END_PAGE,
    ),
    replays_as=vertex.API.name,
)
"""The Gemini Developer API; it is served Vertex AI's recorded bodies."""
