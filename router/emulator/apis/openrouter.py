"""OpenRouter ``POST /api/v1/chat/completions`` with the web plugin: request, reply and stream.

The reply carries the quirks of the recorded OpenRouter body (provider-quirks section 1):
``message.annotations[]`` nested as ``{"type": "url_citation", "url_citation": {...}}`` like
OpenAI's search-preview models, with the page text as ``url_citation.content``, no
``utm_source`` on any URL, and a ``title`` that can be ``""``. Models searched by OpenRouter's
own engine (Exa) get both offsets set to 0; ``openai/`` models, searched natively, get the
inline ``([domain](url))`` markers' real offsets. ``usage`` reports the ``cost`` charged (the
plugin's fee included) and ``server_tool_use_details.web_search_requests``. A grounded request
is one that asks for the ``web`` plugin or names an ``:online`` model. Streams send the text in
``delta.content`` pieces, the annotations in the last chunk's ``delta.annotations``, then
``data: [DONE]``.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Mapping
from typing import Any

from router.emulator.apis.openai_responses import _cited_text
from router.emulator.apis.row import (
    CLOUDFLARE_PAGE,
    ErrorShapes,
    ProviderApi,
    bearer_token,
    exact_path,
)
from router.emulator.catalogue import Answer
from router.emulator.fault_kinds import FaultKind, retry_after_header
from router.emulator.ids import rng_for
from router.emulator.json_values import SchemaFiller
from router.emulator.reply import Reply, openai_json
from router.emulator.sse import data_frame
from router.emulator.wire import Ask, BadRequest, JsonFormat

__all__ = ["API", "PATH", "build_response", "openrouter_error", "read_request", "stream_chunks"]

PATH = "/api/v1/chat/completions"
_NATIVE_SEARCH_PREFIX = "openai/"
_PLUGIN_FEE = 0.02  # five results at $4 per 1,000, the web plugin's default


def read_request(body: Mapping[str, Any]) -> Ask:
    """The :class:`Ask` of a chat completion request; raises :class:`BadRequest` like the API."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("No models provided", code="400")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest('Input required: specify "prompt" or "messages"', code="400")
    user_texts = [
        str(message.get("content", ""))
        for message in messages
        if isinstance(message, Mapping) and message.get("role") == "user"
    ]
    prompt = user_texts[-1] if user_texts else ""
    plugins = body.get("plugins")
    web = (
        next((p for p in plugins if isinstance(p, Mapping) and p.get("id") == "web"), None)
        if isinstance(plugins, list)
        else None
    )
    location = web.get("user_location") if isinstance(web, Mapping) else None
    for name in ("include_domains", "exclude_domains"):
        listed = web.get(name) if isinstance(web, Mapping) else None
        if listed is not None and (
            not isinstance(listed, list) or not all(isinstance(d, str) for d in listed)
        ):
            raise BadRequest(f"plugins[0].{name}: Expected array of strings", code="400")
    country = location.get("country") if isinstance(location, Mapping) else None
    return Ask(
        api="openrouter",
        model=model,
        prompt=prompt,
        question=prompt,
        stream=body.get("stream") is True,
        search=(web is not None and web.get("enabled", True) is not False)
        or model.endswith(":online"),
        json_format=_json_format(body.get("response_format")),
        country=country if isinstance(country, str) else None,
        echo=body,
    )


def _json_format(value: object) -> JsonFormat | None:
    if not isinstance(value, Mapping):
        return None
    if value.get("type") == "json_object":
        return JsonFormat(None)
    if value.get("type") != "json_schema":
        return None
    spec = value.get("json_schema")
    schema = spec.get("schema") if isinstance(spec, Mapping) else None
    return JsonFormat(schema if isinstance(schema, Mapping) else None)


def build_response(
    ask: Ask, answer: Answer, *, fault: FaultKind | None, serial: str, created: int
) -> dict[str, Any]:
    """The final chat completion for ``ask``, as OpenRouter returns it."""
    searched = ask.search and fault not in ("no_search", "empty_grounding")
    citing = searched and fault != "no_citations"
    annotations: list[dict[str, Any]] = []
    if ask.json_format is not None:
        filler = SchemaFiller(answer, rng_for("openrouter-json", ask.question), country=ask.country)
        text = json.dumps(filler.value(ask.json_format.schema), ensure_ascii=False)
    elif citing:
        text, found = _cited_text(answer, opened=None, bare=set(range(len(answer.sources))))
        annotations = _nested(found, answer, native=ask.model.startswith(_NATIVE_SEARCH_PREFIX))
    else:
        text = answer.plain_text
    if citing and ask.json_format is not None:
        annotations = _nested(
            [{"url": s.url, "title": s.title} for s in answer.sources if not s.vertex_only],
            answer,
            native=False,
        )
    prompt_tokens = max(1, len(ask.prompt) // 4) + (900 if searched else 0)
    completion_tokens = max(1, len(text) // 4)
    inference = round(prompt_tokens * 0.15e-6 + completion_tokens * 0.6e-6, 9)
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "cost": round(inference + (_PLUGIN_FEE if searched else 0.0), 9),
        "cost_details": {"upstream_inference_cost": inference},
    }
    if searched:
        usage["server_tool_use_details"] = {"web_search_requests": 1}
    return {
        # Real ids carry the second they were made ("gen-1786680756-..."); this one a number from
        # the serial, so a seeded request gets the same id in any second (streamed or not).
        "id": f"gen-{1_700_000_000 + int(serial[:7], 16)}-{serial[:20]}",
        "provider": "OpenAI",
        "model": ask.model,
        "object": "chat.completion",
        "created": created,
        "choices": [
            {
                "logprobs": None,
                "finish_reason": "stop",
                "native_finish_reason": "stop",
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": text,
                    "refusal": None,
                    "reasoning": None,
                    "annotations": annotations,
                },
            }
        ],
        "usage": usage,
    }


def _nested(found: list[dict[str, Any]], answer: Answer, *, native: bool) -> list[dict[str, Any]]:
    """Annotations in the Chat Completions nesting, with the page text; Exa's offsets are 0."""
    pages = {source.url: source for source in answer.sources}
    nested = []
    for number, annotation in enumerate(found):
        url = annotation["url"]
        source = pages.get(url)
        title = annotation.get("title", "") if number % 5 != 1 else ""  # some titles are ""
        nested.append(
            {
                "type": "url_citation",
                "url_citation": {
                    "url": url,
                    "title": title,
                    "content": f"{source.title if source else url}\n\n...\n\nThe page's text.",
                    "start_index": annotation.get("start_index", 0) if native else 0,
                    "end_index": annotation.get("end_index", 0) if native else 0,
                },
            }
        )
    return nested


def stream_chunks(body: Mapping[str, Any], *, serial: str) -> list[dict[str, Any]]:
    """The chunks of ``body``: text pieces, then the annotations with the finish reason."""
    message = body["choices"][0]["message"]
    text: str = message["content"]
    rng = rng_for("openrouter-chunks", serial)
    cuts = [0]
    while cuts[-1] < len(text):
        cuts.append(min(len(text), cuts[-1] + rng.randint(10, 80)))
    pieces = [text[a:b] for a, b in itertools.pairwise(cuts)]
    envelope = {k: body[k] for k in ("id", "provider", "model", "created")}
    chunks: list[dict[str, Any]] = []
    for number, piece in enumerate(pieces):
        delta: dict[str, Any] = {"content": piece}
        if number == 0:
            delta = {"role": "assistant", **delta}
        chunks.append(_chunk(envelope, delta, None))
    chunks.append(_chunk(envelope, {"content": "", "annotations": message["annotations"]}, "stop"))
    chunks.append(
        {**envelope, "object": "chat.completion.chunk", "choices": [], "usage": body["usage"]}
    )
    return chunks


def _chunk(
    envelope: Mapping[str, Any], delta: dict[str, Any], finish: str | None
) -> dict[str, Any]:
    return {
        **envelope,
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


# -- errors: {"error": {"message", "code"}} ---------------------------------------------------

_ERROR_MESSAGES = {
    400: "Provider returned error",
    401: "No auth credentials found",
    429: "Rate limit exceeded: too many requests. Please retry shortly.",
    500: "Internal Server Error",
    503: "No instances available",
}


def openrouter_error(status: int, message: str, *, headers: dict[str, str] | None = None) -> Reply:
    """An OpenRouter error reply: ``{"error": {"message", "code"}}``."""
    body = {"error": {"message": message, "code": status}}
    return Reply(status, openai_json(body).encode(), headers=headers or {})


def _fault_reply(status: int, retry_after_s: float | None, _model: str) -> Reply:
    headers: dict[str, str] = {}
    if retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(retry_after_s)
    message = _ERROR_MESSAGES.get(status, _ERROR_MESSAGES[503])
    return openrouter_error(status, message, headers=headers)


# -- the row ---------------------------------------------------------------------------------


def _synthesise(
    ask: Ask, answer: Answer, fault: FaultKind | None, serial: str, _sse: bool
) -> list[bytes] | Reply:
    body = build_response(ask, answer, fault=fault, serial=serial, created=int(time.time()))
    if ask.stream:
        frames = [data_frame(chunk) for chunk in stream_chunks(body, serial=serial)]
        return [*frames, b"data: [DONE]\n\n"]
    return Reply(200, openai_json(body).encode())


API = ProviderApi(
    name="openrouter",
    base_path="/api/v1",
    match=exact_path(PATH),
    claims_path=lambda path: path.startswith("/api/"),
    authorised=lambda headers, _query: bearer_token(headers),
    read_request=lambda body, _endpoint: read_request(body),
    synthesise=_synthesise,
    errors=ErrorShapes(
        fault=_fault_reply,
        bad_request=lambda message, _param, _code: openrouter_error(400, message),
        unparseable_body=lambda: openrouter_error(400, "Invalid JSON body"),
        missing_auth=lambda: openrouter_error(401, _ERROR_MESSAGES[401]),
        not_found=lambda method, path: openrouter_error(404, f"Not Found ({method} {path})"),
        proxy_page=CLOUDFLARE_PAGE,
    ),
)
"""OpenRouter's chat completions with the web plugin."""
