"""Vertex AI ``generateContent``: read the request, synthesise the reply and its SSE chunks.

The reply carries the quirks measured on recorded bodies: chunk URIs that are
``grounding-api-redirect`` links titled by bare domain, ``web.domain`` on some chunks only,
supports whose offsets are UTF-8 bytes (``startIndex`` omitted when 0) with unsorted
``groundingChunkIndices``, a google.com/search chunk with literal spaces for weather and time
answers, ``webSearchQueries`` and ``searchEntryPoint.renderedContent``; in a stream every chunk
carries ``groundingMetadata: {}`` and only the last one is populated.
"""

from __future__ import annotations

import html
import itertools
import json
import random
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from router.emulator.apis.row import Endpoint, ErrorShapes, ProviderApi, bearer_token
from router.emulator.catalogue import Answer
from router.emulator.fault_kinds import FaultKind, retry_after_header
from router.emulator.ids import redirect_token, rng_for, vertex_response_id
from router.emulator.json_values import SchemaFiller
from router.emulator.reply import Reply, google_json
from router.emulator.sse import vertex_frame
from router.emulator.wire import Ask, BadRequest, JsonFormat

__all__ = [
    "API",
    "GOOGLE_FRONT_END_PAGE",
    "REDIRECT_PREFIX",
    "build_response",
    "google_bad_request",
    "google_delivery",
    "google_error",
    "google_fault_reply",
    "google_match",
    "google_not_found",
    "google_unparseable_body",
    "read_request",
    "stream_chunks",
]

REDIRECT_PREFIX = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
_SEARCH_TOOL_KEYS = frozenset(
    {"googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval"}
)
_SCHEMA_KEYS = ("responseJsonSchema", "response_json_schema", "responseSchema", "response_schema")
_MAX_CHUNKS = 5


def read_request(body: Mapping[str, Any], *, model: str, stream: bool) -> Ask:
    """The :class:`Ask` in a generateContent request; raises :class:`BadRequest` as Vertex would."""
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        raise BadRequest(
            "Unable to submit request because it has an empty contents field. Add a value and "
            "try again."
        )
    user_texts = [
        _text_of(content)
        for content in contents
        if isinstance(content, Mapping) and content.get("role", "user") == "user"
    ]
    prompt = user_texts[-1] if user_texts else ""
    tools = body.get("tools") or []
    search = isinstance(tools, list) and any(
        isinstance(t, Mapping) and _SEARCH_TOOL_KEYS & t.keys() for t in tools
    )
    config = body.get("generationConfig") or {}
    json_format = None
    if isinstance(config, Mapping) and config.get("responseMimeType") == "application/json":
        schema = next((config[k] for k in _SCHEMA_KEYS if isinstance(config.get(k), Mapping)), None)
        json_format = JsonFormat(schema)
    # A reshape (no tools, JSON asked, after the model's own answer) restates the question the
    # model already answered: answer that first question again, so the JSON says the same.
    answered = any(isinstance(c, Mapping) and c.get("role") == "model" for c in contents)
    reshape = json_format is not None and not search and answered and len(user_texts) > 1
    return Ask(
        api="vertex",
        model=model,
        prompt=prompt,
        question=user_texts[0] if reshape else prompt,
        stream=stream,
        search=search,
        json_format=json_format,
        country=_country(body),
        echo=body,
    )


def _text_of(content: Mapping[str, Any]) -> str:
    parts = content.get("parts") or []
    return "\n".join(str(p["text"]) for p in parts if isinstance(p, Mapping) and "text" in p)


def _country(body: Mapping[str, Any]) -> str | None:
    """The region of ``toolConfig.retrievalConfig.languageCode`` ("de-DE" gives "DE")."""
    config = body.get("toolConfig")
    retrieval = config.get("retrievalConfig") if isinstance(config, Mapping) else None
    code = retrieval.get("languageCode") if isinstance(retrieval, Mapping) else None
    if isinstance(code, str) and "-" in code:
        return code.rsplit("-", 1)[1].upper()
    return None


def build_response(
    ask: Ask, answer: Answer, *, fault: FaultKind | None, serial: str, create_time: str
) -> dict[str, Any]:
    """The final generateContent body for ``ask``."""
    rng = rng_for("vertex", ask.question, ask.model)
    searched = ask.search and fault != "no_search"
    if ask.json_format is not None:
        text, spans = _json_text(ask, answer)
    else:
        text, spans = _prose(answer)
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP",
    }
    if searched:
        if fault == "empty_grounding":
            candidate["groundingMetadata"] = {}
        else:
            candidate["groundingMetadata"] = _grounding(
                ask, answer, spans, rng, cite=fault != "no_citations"
            )
    prompt_tokens = _tokens(ask.prompt)
    text_tokens = _tokens(text)
    usage: dict[str, Any] = {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": text_tokens,
        "totalTokenCount": 0,
        "trafficType": "ON_DEMAND",
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt_tokens}],
        "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": text_tokens}],
    }
    if searched:
        tool_tokens = rng.randint(40, 120)
        usage["toolUsePromptTokensDetails"] = [{"modality": "TEXT", "tokenCount": tool_tokens}]
        usage["toolUsePromptTokenCount"] = tool_tokens
    if "2.5" in ask.model or "gemini-3" in ask.model:
        usage["thoughtsTokenCount"] = rng.randint(80, 400)
    usage["totalTokenCount"] = sum(
        usage.get(k, 0)
        for k in (
            "promptTokenCount",
            "candidatesTokenCount",
            "toolUsePromptTokenCount",
            "thoughtsTokenCount",
        )
    )
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": ask.model,
        "createTime": create_time,
        "responseId": vertex_response_id(serial),
    }


# A claim placed in the answer text: claim index, UTF-8 byte span, and the text of the span.
_Span = tuple[int, int, int, str]


def _prose(answer: Answer) -> tuple[str, list[_Span]]:
    spans: list[_Span] = []
    offset = 0
    for index, claim in enumerate(answer.claims):
        if index:
            offset += 1  # the joining space
        size = len(claim.text.encode())
        spans.append((index, offset, offset + size, claim.text))
        offset += size
    return " ".join(c.text for c in answer.claims), spans


def _json_text(ask: Ask, answer: Answer) -> tuple[str, list[_Span]]:
    """JSON for the schema; spans cover the claims inside its string values (in bytes)."""
    assert ask.json_format is not None
    filler = SchemaFiller(answer, rng_for("vertex-json", ask.question), country=ask.country)
    text = json.dumps(filler.value(ask.json_format.schema), ensure_ascii=False, indent=2)
    spans: list[_Span] = []
    cursor = 0
    for claim_index, placed in filler.placed_claims:
        escaped = json.dumps(placed, ensure_ascii=False)[1:-1]
        found = text.find(escaped, cursor)
        if found < 0:
            continue
        start = len(text[:found].encode())
        spans.append((claim_index, start, start + len(escaped.encode()), escaped))
        cursor = found + len(escaped)
    return text, spans


def _grounding(
    ask: Ask, answer: Answer, spans: list[_Span], rng: random.Random, *, cite: bool
) -> dict[str, Any]:
    queries = list(answer.queries) or [answer.topic]
    metadata: dict[str, Any] = {
        "webSearchQueries": queries,
        "searchEntryPoint": {"renderedContent": _rendered_content(queries, ask.question)},
    }
    if cite:
        cited = list(dict.fromkeys(i for c in answer.claims for i in c.cites))
        # One search result that no support uses, as real responses often include.
        extra = [i for i in range(len(answer.sources)) if i not in cited][:1]
        order = (cited + extra)[:_MAX_CHUNKS]
        position = {source: n for n, source in enumerate(order)}
        metadata["groundingChunks"] = [_chunk(answer, i, ask.question, rng) for i in order]
        metadata["groundingSupports"] = [
            support for span in spans if (support := _support(answer, span, position)) is not None
        ]
    if ask.model.startswith("gemini-2"):
        metadata["retrievalMetadata"] = {}
    return metadata


def _chunk(answer: Answer, index: int, question: str, rng: random.Random) -> dict[str, Any]:
    source = answer.sources[index]
    if source.vertex_only:
        # Google's own weather/time answers point at google.com/search, spaces and all.
        return {"web": {"uri": source.url, "title": source.title}}
    web = {"uri": REDIRECT_PREFIX + redirect_token(question, source.url), "title": source.domain}
    if rng.random() < 0.6:
        web["domain"] = source.domain
    return {"web": web}


def _support(answer: Answer, span: _Span, position: Mapping[int, int]) -> dict[str, Any] | None:
    claim_index, start, end, text = span
    indices = [position[i] for i in answer.claims[claim_index].cites if i in position]
    if not indices:
        return None
    # Real supports list their chunks unsorted ([2, 0, 1]); rotating keeps them so.
    indices = indices[1:] + indices[:1]
    segment: dict[str, Any] = {"endIndex": end, "text": text}
    if start:
        # proto3 leaves a zero startIndex out of the JSON.
        segment = {"startIndex": start, **segment}
    return {"segment": segment, "groundingChunkIndices": indices}


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def stream_chunks(body: Mapping[str, Any], *, serial: str) -> list[dict[str, Any]]:
    """The ``alt=sse`` chunks that deliver ``body``: text in pieces, grounding on the last."""
    candidate = body["candidates"][0]
    text: str = candidate["content"]["parts"][0]["text"]
    rng = rng_for("chunks", serial)
    cuts = [0, min(len(text), rng.randint(1, 3))]
    while cuts[-1] < len(text):
        cuts.append(min(len(text), cuts[-1] + rng.randint(40, 200)))
    pieces = [text[a:b] for a, b in itertools.pairwise(cuts)] or [""]
    grounded = "groundingMetadata" in candidate
    envelope = {k: body[k] for k in ("modelVersion", "createTime", "responseId") if k in body}
    chunks: list[dict[str, Any]] = []
    for piece in pieces[:-1]:
        part: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": piece}]}}
        if grounded:
            part["groundingMetadata"] = {}
        chunks.append(
            {"candidates": [part], "usageMetadata": {"trafficType": "ON_DEMAND"}, **envelope}
        )
    last: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": pieces[-1]}]},
        "finishReason": candidate.get("finishReason", "STOP"),
    }
    if grounded:
        last["groundingMetadata"] = candidate["groundingMetadata"]
    chunks.append({"candidates": [last], "usageMetadata": body["usageMetadata"], **envelope})
    return chunks


_ENTRY_POINT_STYLE = """<style>
.container {
  align-items: center;
  border-radius: 8px;
  display: flex;
  font-family: Google Sans, Roboto, sans-serif;
  font-size: 14px;
  line-height: 20px;
  padding: 8px 12px;
}
.chip {
  display: inline-block;
  border: solid 1px;
  border-radius: 16px;
  min-width: 14px;
  padding: 5px 16px;
  text-align: center;
  user-select: none;
  margin: 0 8px;
  -webkit-tap-highlight-color: transparent;
}
.carousel {
  overflow: auto;
  scrollbar-width: none;
  white-space: nowrap;
  margin-right: -12px;
}
.headline {
  display: flex;
  margin-right: 4px;
}
@media (prefers-color-scheme: light) {
  .container {
    background-color: #fafafa;
    box-shadow: 0 0 0 1px #0000000f;
  }
  .chip {
    background-color: #ffffff;
    border-color: #d2d2d2;
    color: #5e5e5e;
    text-decoration: none;
  }
}
@media (prefers-color-scheme: dark) {
  .container {
    background-color: #1f1f1f;
    box-shadow: 0 0 0 1px #ffffff26;
  }
  .chip {
    background-color: #2c2c2c;
    border-color: #3c4043;
    color: #fff;
    text-decoration: none;
  }
}
</style>
<div class="container">
  <div class="headline">
    <svg class="logo-light" width="18" height="18" viewBox="9 9 35 35" fill="none" \
xmlns="http://www.w3.org/2000/svg">
      <path fill-rule="evenodd" clip-rule="evenodd" d="M42.8622 27.0064C42.8622 25.7839 42.7525 \
24.6084 42.5487 23.4799H26.3109V30.1568H35.5897C35.1821 32.3041 33.9596 34.1222 32.1258 \
35.3448V39.6864H37.7213C40.9814 36.677 42.8622 32.2571 42.8622 27.0064V27.0064Z" fill="#4285F4"/>
    </svg>
  </div>
  <div class="carousel">
"""


def _rendered_content(queries: list[str], question: str) -> str:
    """The Search Suggestions chip widget: one chip per query, linking through a redirect."""
    chips = "".join(
        f'    <a class="chip" href="{REDIRECT_PREFIX}{redirect_token(question, "chip", q)}">'
        f"{html.escape(q, quote=False)}</a>\n"
        for q in queries
    )
    return f"{_ENTRY_POINT_STYLE}{chips}  </div>\n</div>\n"


# -- errors: {"error": {"code", "message", "status"}}, shared with the Gemini API ------------

_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_GOOGLE_MESSAGE = {
    400: "Request contains an invalid argument.",
    401: (
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
        "cookie or other valid authentication credential. See "
        "https://developers.google.com/identity/sign-in/web/devconsole-project."
    ),
    429: (
        "Resource exhausted. Please try again later. Please refer to "
        "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details."
    ),
    500: "Internal error encountered.",
    503: "The service is currently unavailable.",
}
GOOGLE_FRONT_END_PAGE = (
    "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <meta name=viewport "
    'content="initial-scale=1, minimum-scale=1, width=device-width">\n'
    "  <title>Error {status} (Server Error)!!1</title>\n"
    "  <a href=//www.google.com/><span id=logo aria-label=Google></span></a>\n"
    "  <p><b>{status}.</b> <ins>That’s an error.</ins>\n"
    "  <p>The server encountered a temporary error and could not complete your request."
    "<p>Please try again in 30 seconds.  <ins>That’s all we know.</ins>\n"
)
"""The HTML error page of Google's front end, in front of Vertex AI and the Gemini API."""


def google_error(
    status: int,
    message: str | None = None,
    *,
    headers: dict[str, str] | None = None,
    details: list[dict[str, Any]] | None = None,
) -> Reply:
    """A Google API error reply with the canonical status name for the HTTP code."""
    error: dict[str, Any] = {
        "code": status,
        "message": message or _GOOGLE_MESSAGE.get(status, "Unknown error."),
        "status": _GOOGLE_STATUS.get(status, "UNKNOWN"),
    }
    if details:
        error["details"] = details
    return Reply(status, google_json({"error": error}).encode(), headers=headers or {})


def google_fault_reply(status: int, retry_after_s: float | None, _model: str) -> Reply:
    """A status fault as Google answers it: the canonical error, Retry-After when set."""
    headers = {}
    if retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(retry_after_s)
    return google_error(status, headers=headers)


def google_bad_request(message: str, _param: str | None, _code: str | None) -> Reply:
    """HTTP 400 ``INVALID_ARGUMENT`` with the service's message."""
    return google_error(400, message)


def google_unparseable_body() -> Reply:
    """HTTP 400 for a body that is not JSON."""
    return google_error(400, "Invalid JSON payload received. Unexpected token.")


def google_not_found(_method: str, path: str) -> Reply:
    """HTTP 404 ``NOT_FOUND`` naming the path."""
    return google_error(404, f"Requested entity was not found: {path}")


# -- the row ---------------------------------------------------------------------------------

_PATH = re.compile(
    r"^/(?:v1|v1beta1)/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/"
    r"(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
)


def google_match(pattern: re.Pattern[str]) -> Callable[[str, Mapping[str, str]], Endpoint | None]:
    """A matcher for a ``models/{m}:generateContent`` path: the model and streaming in it."""

    def match(path: str, query: Mapping[str, str]) -> Endpoint | None:
        found = pattern.match(path)
        if found is None:
            return None
        stream = found["method"] == "streamGenerateContent"
        return Endpoint(found["model"], stream=stream, sse=stream and query.get("alt") == "sse")

    return match


def google_delivery(
    ask: Ask,
    body: Mapping[str, Any],
    chunks: Callable[[Mapping[str, Any]], list[dict[str, Any]]],
    *,
    sse: bool,
) -> list[bytes] | Reply:
    """``body`` as one reply, or streamed: SSE frames, or without ``alt=sse`` one JSON array."""
    if not ask.stream:
        return Reply(200, google_json(body).encode())
    if sse:
        return [vertex_frame(chunk) for chunk in chunks(body)]
    # Without alt=sse the stream is one JSON array, delivered element by element.
    array = "[" + ",\r\n".join(google_json(chunk) for chunk in chunks(body)) + "]"
    return Reply(200, array.encode())


def _synthesise(
    ask: Ask, answer: Answer, fault: FaultKind | None, serial: str, sse: bool
) -> list[bytes] | Reply:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    body = build_response(ask, answer, fault=fault, serial=serial, create_time=now)
    return google_delivery(ask, body, lambda b: stream_chunks(b, serial=serial), sse=sse)


def _authorised(headers: Mapping[str, str], _query: Mapping[str, str]) -> bool:
    return bearer_token(headers) or bool(headers.get("x-goog-api-key"))


def _replays_stream(text: str) -> bool:
    return text.lstrip().startswith("data:") and '"candidates"' in text


API = ProviderApi(
    name="vertex",
    base_path="",
    match=google_match(_PATH),
    claims_path=lambda path: "/publishers/" in path or path.startswith("/v1beta1"),
    authorised=_authorised,
    read_request=lambda body, endpoint: read_request(
        body, model=endpoint.model, stream=endpoint.stream
    ),
    synthesise=_synthesise,
    errors=ErrorShapes(
        fault=google_fault_reply,
        bad_request=google_bad_request,
        unparseable_body=google_unparseable_body,
        missing_auth=lambda: google_error(401),
        not_found=google_not_found,
        proxy_page=GOOGLE_FRONT_END_PAGE,
    ),
    replays_json=lambda body: isinstance(body.get("candidates"), list),
    replays_stream=_replays_stream,
)
"""Vertex AI ``generateContent`` and ``streamGenerateContent``."""
