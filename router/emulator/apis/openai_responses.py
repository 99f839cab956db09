"""OpenAI Responses API: read a ``POST /v1/responses`` body, synthesise the reply and its stream.

The reply carries the quirks measured on recorded bodies: inline markers
``([domain](url?utm_source=openai))`` covered by ``url_citation`` annotations with code-point
offsets, one annotation per citing sentence (so URLs repeat), several ``web_search_call``
items with ``query`` and ``queries``, an ``open_page`` URL cited without utm, ``action.sources``
only when ``include`` asks for them, and private-use citation tokens inside JSON answers.
"""

from __future__ import annotations

import base64
import json
import math
import random
import re
import secrets
import time
from collections.abc import Mapping
from typing import Any

from router.emulator.apis.row import (
    CLOUDFLARE_PAGE,
    ErrorShapes,
    ProviderApi,
    bearer_token,
    exact_path,
)
from router.emulator.catalogue import Answer
from router.emulator.fault_kinds import FaultKind, retry_after_header
from router.emulator.ids import openai_id, rng_for
from router.emulator.json_values import SchemaFiller
from router.emulator.reply import Reply, openai_json
from router.emulator.sse import openai_event
from router.emulator.wire import Ask, BadRequest, JsonFormat

__all__ = ["API", "build_response", "openai_error", "read_request", "stream_events"]

_SEARCH_TOOLS = frozenset(
    {"web_search", "web_search_2025_08_26", "web_search_preview", "web_search_preview_2025_03_11"}
)
_SOURCES_INCLUDE = "web_search_call.action.sources"
_REFUSE = re.compile(r"\[\[emulator:refuse=([a-z_,]+)\]\]")
_REASONING_PREFIXES = ("gpt-5", "o1", "o3", "o4")
_CITE_OPEN, _CITE_SEP, _CITE_CLOSE = "\ue200", "\ue202", "\ue201"
_NO_IMAGE_TOKENS = {
    "input_tokens": 0,
    "input_tokens_details": {"image_tokens": 0, "text_tokens": 0},
    "output_tokens": 0,
    "output_tokens_details": {"image_tokens": 0, "text_tokens": 0},
    "total_tokens": 0,
}


def read_request(body: Mapping[str, Any]) -> Ask:
    """The :class:`Ask` in a Responses request; raises :class:`BadRequest` as the API would."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest(
            "Missing required parameter: 'model'.", param="model", code="missing_required_parameter"
        )
    tools = body.get("tools") or []
    if not isinstance(tools, list):
        raise BadRequest("Invalid type for 'tools': expected an array.", param="tools")
    tool_choice = body.get("tool_choice", "auto")
    if tool_choice == "required" and not tools:
        raise BadRequest(
            "Tool choice 'required' must be specified with 'tools' parameter.", param="tool_choice"
        )
    search_tool = next(
        (t for t in tools if isinstance(t, Mapping) and t.get("type") in _SEARCH_TOOLS), None
    )
    include = body.get("include") or []
    prompt = _last_user_text(body.get("input"))
    _check_refusals(prompt, model, body, search_tool)
    size = search_tool.get("search_context_size") if search_tool else None
    if size is not None and size not in ("low", "medium", "high"):
        raise BadRequest(
            f"Invalid value: {size!r}. Supported values are: 'low', 'medium', and 'high'.",
            param="tools[0].search_context_size",
            code="invalid_value",
        )
    location = search_tool.get("user_location") if search_tool else None
    country = location.get("country") if isinstance(location, Mapping) else None
    return Ask(
        api="openai",
        model=model,
        prompt=prompt,
        question=prompt,
        stream=body.get("stream") is True,
        search=search_tool is not None and tool_choice != "none",
        include_sources=isinstance(include, list) and _SOURCES_INCLUDE in include,
        json_format=_json_format(body),
        country=country if isinstance(country, str) else None,
        echo=body,
    )


def _check_refusals(
    prompt: str, model: str, body: Mapping[str, Any], search_tool: Mapping[str, Any] | None
) -> None:
    """Raise the 400 a ``[[emulator:refuse=...]]`` directive asks for, when the request has it."""
    refused = {name for found in _REFUSE.findall(prompt) for name in found.split(",")}
    if not refused or search_tool is None:
        return
    if "tool_choice" in refused and "tool_choice" in body:
        raise BadRequest(
            f"'tool_choice' cannot force the hosted tool '{search_tool.get('type')}' with "
            f"{model}; remove tool_choice or use 'auto'.",
            param="tool_choice",
            code="unsupported_value",
        )
    if "web_search" in refused and search_tool.get("type") == "web_search":
        raise BadRequest(
            f"Hosted tool 'web_search' is not supported with {model}.",
            param="tools",
            code="unsupported_value",
        )


def _last_user_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return ""
    for item in reversed(value):
        if isinstance(item, Mapping) and item.get("role", "user") == "user":
            return _content_text(item.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") in ("input_text", "text")
        )
    return ""


def _json_format(body: Mapping[str, Any]) -> JsonFormat | None:
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, Mapping) else None
    if not isinstance(fmt, Mapping):
        return None
    if fmt.get("type") == "json_schema":
        for key in ("name", "schema"):
            if not fmt.get(key):
                raise BadRequest(
                    f"Missing required parameter: 'text.format.{key}'.",
                    param=f"text.format.{key}",
                    code="missing_required_parameter",
                )
        schema = fmt["schema"]
        return JsonFormat(schema if isinstance(schema, Mapping) else None)
    if fmt.get("type") == "json_object":
        everything = json.dumps([body.get("input"), body.get("instructions")]).lower()
        if "json" not in everything:
            raise BadRequest(
                "Response input messages must contain the word 'json' in some form to use "
                "'text.format' of type 'json_object'.",
                param="input",
            )
        return JsonFormat(None)
    return None


def build_response(
    ask: Ask, answer: Answer, *, fault: FaultKind | None, serial: str, created_at: int
) -> dict[str, Any]:
    """The final Responses body for ``ask``, as ``POST /v1/responses`` returns it."""
    rng = rng_for("openai", ask.question, ask.model)
    searched = ask.search and fault not in ("no_search", "empty_grounding")
    citing = searched and fault != "no_citations"
    reasoning = ask.model.startswith(_REASONING_PREFIXES)
    output: list[dict[str, Any]] = []
    if reasoning:
        output.append(_reasoning_item(serial, 0))
    opened: int | None = None
    if searched:
        calls, opened = _search_calls(ask, answer, citing=citing, serial=serial)
        output.extend(calls)
        if reasoning:
            output.append(_reasoning_item(serial, 1))
    if ask.json_format is not None:
        text = _json_text(ask, answer, citing=citing)
        annotations: list[dict[str, Any]] = []
    elif citing:
        text, annotations = _cited_text(answer, opened=opened, bare=_bare_urls(answer, rng))
    else:
        text, annotations = answer.plain_text, []
    output.append(
        {
            "id": openai_id("msg", serial, "msg"),
            "type": "message",
            "status": "completed",
            "content": [
                {"type": "output_text", "annotations": annotations, "logprobs": [], "text": text}
            ],
            "role": "assistant",
        }
    )
    searches = sum(1 for item in output if item.get("action", {}).get("type") == "search")
    reasoning_tokens = rng.randint(40, 400) if reasoning else 0
    input_tokens = (
        _tokens(ask.prompt) + 12 + (searches * 1400 + rng.randint(0, 900) if searched else 0)
    )
    output_tokens = _tokens(text) + reasoning_tokens
    echo = ask.echo
    return {
        "id": openai_id("resp", serial, "resp"),
        "object": "response",
        "created_at": created_at,
        "status": "completed",
        "background": False,
        "billing": {"payer": "developer"},
        "completed_at": created_at + 2 + rng.randint(0, 6),
        "error": None,
        "frequency_penalty": 0.0,
        "incomplete_details": None,
        "instructions": echo.get("instructions"),
        "max_output_tokens": echo.get("max_output_tokens"),
        "max_tool_calls": echo.get("max_tool_calls"),
        "model": ask.model,
        "output": output,
        "parallel_tool_calls": echo.get("parallel_tool_calls", True),
        "presence_penalty": 0.0,
        "previous_response_id": echo.get("previous_response_id"),
        "prompt_cache_key": None,
        "prompt_cache_retention": None,
        "reasoning": {"effort": "medium" if reasoning else None, "summary": None},
        "safety_identifier": None,
        "service_tier": "default",
        "store": echo.get("store", True),
        "temperature": echo.get("temperature", 1.0),
        "text": {"format": _echo_format(echo), "verbosity": "medium"},
        "tool_choice": echo.get("tool_choice", "auto"),
        "tool_usage": {"image_gen": _NO_IMAGE_TOKENS, "web_search": {"num_requests": searches}},
        "tools": [_echo_tool(t) for t in echo.get("tools") or [] if isinstance(t, Mapping)],
        "top_logprobs": 0,
        "top_p": echo.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": input_tokens + output_tokens,
        },
        "user": None,
        "metadata": echo.get("metadata") or {},
    }


def _reasoning_item(serial: str, n: int) -> dict[str, Any]:
    return {"id": openai_id("rs", serial, str(n)), "type": "reasoning", "summary": []}


def _search_calls(
    ask: Ask, answer: Answer, *, citing: bool, serial: str
) -> tuple[list[dict[str, Any]], int | None]:
    """The web_search_call items, and the source reached by open_page (cited without utm)."""
    queries = list(answer.queries) or [answer.topic]
    groups = [queries[:2], *([queries[2:]] if len(queries) > 2 else [])]
    web = [i for i, s in enumerate(answer.sources) if not s.vertex_only]
    cited = list(dict.fromkeys(i for c in answer.claims for i in c.cites if i in web))
    opened = cited[1] if citing and len(cited) >= 3 else None
    listed = [answer.sources[i].url for i in web if i != opened]
    first_share = math.ceil(len(listed) * 2 / 3) if len(groups) > 1 else len(listed)
    shares = [listed[:first_share], listed[first_share:]]
    actions: list[dict[str, Any]] = []
    for group, share in zip(groups, shares, strict=False):
        action: dict[str, Any] = {"type": "search", "query": group[0], "queries": group}
        if ask.include_sources:
            action["sources"] = [{"type": "url", "url": u} for u in share] if citing else []
        actions.append(action)
    if opened is not None:
        url = answer.sources[opened].url
        actions.append({"type": "open_page", "url": url})
        actions.append({"type": "find_in_page", "url": url, "pattern": answer.topic.split()[-1]})
    items = [
        {
            "id": openai_id("ws", serial, str(n)),
            "type": "web_search_call",
            "status": "completed",
            "action": action,
        }
        for n, action in enumerate(actions)
    ]
    return items, opened


def _bare_urls(answer: Answer, rng: random.Random) -> set[int]:
    """Sources whose URL is cited without utm even though never opened (about one in six)."""
    return {i for i in range(len(answer.sources)) if rng.random() < 0.16}


def _with_utm(url: str) -> str:
    """The URL with ``utm_source=openai`` appended as the last query parameter."""
    return f"{url}{'&' if '?' in url else '?'}utm_source=openai"


def _cited_text(
    answer: Answer, *, opened: int | None, bare: set[int]
) -> tuple[str, list[dict[str, Any]]]:
    """Claims with inline markdown markers, and one annotation per marker (code points)."""
    text = ""
    annotations: list[dict[str, Any]] = []
    for claim in answer.claims:
        text += (" " if text else "") + claim.text
        for index in claim.cites:
            source = answer.sources[index]
            if source.vertex_only:
                continue
            url = source.url if index == opened or index in bare else _with_utm(source.url)
            host = url.split("/", 3)[2].removeprefix("www.")
            text += " "
            start = len(text)
            text += f"([{host}]({url}))"
            annotations.append(
                {
                    "type": "url_citation",
                    "end_index": len(text),
                    "start_index": start,
                    "title": source.title,
                    "url": url,
                }
            )
    return text, annotations


def _json_text(ask: Ask, answer: Answer, *, citing: bool) -> str:
    """JSON for the requested schema; grounded strings carry the private-use citation tokens."""
    web = [i for i, s in enumerate(answer.sources) if not s.vertex_only]

    def marker(claim_index: int) -> str:
        refs = [f"turn0search{web.index(i)}" for i in answer.claims[claim_index].cites if i in web]
        return f" {_CITE_OPEN}cite{_CITE_SEP}{_CITE_SEP.join(refs)}{_CITE_CLOSE}" if refs else ""

    assert ask.json_format is not None
    filler = SchemaFiller(
        answer,
        rng_for("openai-json", ask.question),
        cite_marker=marker if citing else None,
        country=ask.country,
    )
    value = filler.value(ask.json_format.schema)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _echo_format(echo: Mapping[str, Any]) -> Any:
    text = echo.get("text")
    fmt = text.get("format") if isinstance(text, Mapping) else None
    return fmt if isinstance(fmt, Mapping) else {"type": "text"}


def _echo_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    if tool.get("type") not in _SEARCH_TOOLS:
        return dict(tool)
    location = {
        "type": "approximate",
        "city": None,
        "country": "US",
        "region": None,
        "timezone": None,
    }
    if isinstance(tool.get("user_location"), Mapping):
        location.update(tool["user_location"])
    return {
        "type": tool["type"],
        "filters": None,
        "search_context_size": "medium",
        **tool,
        "user_location": location,
    }


def _tokens(text: str) -> int:
    """A token estimate good enough for usage fields: about four characters per token."""
    return max(1, len(text) // 4)


def stream_events(body: Mapping[str, Any], *, serial: str) -> list[tuple[str, str]]:
    """The SSE events that deliver ``body`` as (event type, data JSON), in the real order."""
    events = _Events()
    index_json = [str(i) for i in range(len(body["output"]))]
    pending = {**body, "status": "in_progress", "completed_at": None, "output": [], "usage": None}
    pending_json = openai_json(pending)
    events.emit("response.created", response=pending_json)
    events.emit("response.in_progress", response=pending_json)
    for index, item in enumerate(body["output"]):
        at = index_json[index]
        if item["type"] == "message":
            _message_events(events, item, at, serial)
            continue
        if item["type"] == "web_search_call":
            started = {"id": item["id"], "type": "web_search_call", "status": "in_progress"}
            events.emit("response.output_item.added", item=openai_json(started), output_index=at)
            item_id = openai_json(item["id"])
            for phase in ("in_progress", "searching", "completed"):
                events.emit(f"response.web_search_call.{phase}", item_id=item_id, output_index=at)
        else:
            events.emit("response.output_item.added", item=openai_json(item), output_index=at)
        events.emit("response.output_item.done", item=openai_json(item), output_index=at)
    events.emit("response.completed", response=openai_json(body))
    return events.frames


class _Events:
    """Stream events built as JSON text: each large object is encoded once and spliced in."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, str]] = []

    def emit(self, kind: str, **members: str) -> None:
        """Add an event; ``members`` are JSON texts, kept in order after ``type``."""
        fields = "".join(f'"{name}":{value},' for name, value in members.items())
        sequence = len(self.frames)
        self.frames.append((kind, f'{{"type":"{kind}",{fields}"sequence_number":{sequence}}}'))


def _message_events(events: _Events, item: Mapping[str, Any], at: str, serial: str) -> None:
    part = item["content"][0]
    text: str = part["text"]
    annotations: list[dict[str, Any]] = part["annotations"]
    item_id = openai_json(item["id"])
    started = {**item, "status": "in_progress", "content": []}
    empty_part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    events.emit("response.output_item.added", item=openai_json(started), output_index=at)
    where = {"content_index": "0", "item_id": item_id, "output_index": at}
    events.emit("response.content_part.added", **where, part=openai_json(empty_part))
    announced = 0
    rng = rng_for("deltas", serial)
    for start, end in _delta_bounds(text, annotations, rng):
        events.emit(
            "response.output_text.delta",
            content_index="0",
            delta=openai_json(text[start:end]),
            item_id=item_id,
            logprobs="[]",
            obfuscation=openai_json(_obfuscation(rng)),
            output_index=at,
        )
        # An annotation follows the delta that completes its marker.
        while announced < len(annotations) and annotations[announced]["end_index"] <= end:
            events.emit(
                "response.output_text.annotation.added",
                annotation=openai_json(annotations[announced]),
                annotation_index=str(announced),
                **where,
            )
            announced += 1
    events.emit("response.output_text.done", **where, logprobs="[]", text=openai_json(text))
    events.emit("response.content_part.done", **where, part=openai_json(part))
    events.emit("response.output_item.done", item=openai_json(item), output_index=at)


def _delta_bounds(
    text: str, annotations: list[dict[str, Any]], rng: random.Random
) -> list[tuple[int, int]]:
    """Delta boundaries: each citation marker whole, the text between cut into short runs."""
    markers = {a["start_index"]: a["end_index"] for a in annotations}
    bounds: list[tuple[int, int]] = []
    position = 0
    while position < len(text):
        if position in markers:
            end = markers[position]
        else:
            end = min(len(text), position + rng.randint(12, 80))
            end = min([end, *(s for s in markers if position < s < end)])
        bounds.append((position, end))
        position = end
    return bounds


def _obfuscation(rng: random.Random) -> str:
    """The padding OpenAI puts on each text delta: 1 to 15 letters and digits."""
    return (
        base64.b64encode(rng.randbytes(12))
        .decode()[: rng.randint(1, 15)]
        .replace("+", "x")
        .replace("/", "y")
    )


# -- errors: {"error": {"message", "type", "param", "code"}} ---------------------------------


def openai_error(
    status: int,
    message: str,
    *,
    kind: str,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An OpenAI error reply; ``kind`` is the error ``type`` (invalid_request_error, ...)."""
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return Reply(status, openai_json(body).encode(), headers=headers or {})


def _fault_reply(status: int, retry_after_s: float | None, model: str) -> Reply:
    headers: dict[str, str] = {}
    if retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(retry_after_s)
        headers["retry-after-ms"] = str(round(retry_after_s * 1000))
    if status == 429:
        wait = retry_after_s or 1.0
        headers |= {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "0"}
        return openai_error(
            429,
            f"Rate limit reached for {model} in organization org-emulator on requests per min "
            f"(RPM): Limit 500, Used 500, Requested 1. Please try again in {wait:g}s. Visit "
            "https://platform.openai.com/account/rate-limits to learn more.",
            kind="requests",
            code="rate_limit_exceeded",
            headers=headers,
        )
    if status == 401:
        return openai_error(
            401,
            "Incorrect API key provided. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            kind="invalid_request_error",
            code="invalid_api_key",
        )
    if status == 400:
        return openai_error(
            400,
            "Invalid value for 'input': the request could not be processed.",
            kind="invalid_request_error",
            param="input",
            code="invalid_value",
        )
    message = (
        "The server had an error while processing your request. Sorry about that!"
        if status == 500
        else "The server is overloaded or not ready yet."
    )
    return openai_error(status, message, kind="server_error", headers=headers)


def _bad_request(message: str, param: str | None, code: str | None) -> Reply:
    return openai_error(400, message, kind="invalid_request_error", param=param, code=code)


def _unparseable_body() -> Reply:
    return openai_error(
        400,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
        "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
        "sent was not valid JSON.)",
        kind="invalid_request_error",
    )


def _missing_auth() -> Reply:
    return openai_error(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization "
        "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        kind="invalid_request_error",
    )


def _not_found(method: str, path: str) -> Reply:
    return openai_error(404, f"Invalid URL ({method} {path})", kind="invalid_request_error")


# -- the row ---------------------------------------------------------------------------------


def _synthesise(
    ask: Ask, answer: Answer, fault: FaultKind | None, serial: str, _sse: bool
) -> list[bytes] | Reply:
    body = build_response(ask, answer, fault=fault, serial=serial, created_at=int(time.time()))
    if ask.stream:
        return [openai_event(kind, data) for kind, data in stream_events(body, serial=serial)]
    return Reply(200, openai_json(body).encode())


def _replays_stream(text: str) -> bool:
    return "event: response." in text or '"type":"response.' in text


def _replays_json(body: Mapping[str, Any]) -> bool:
    return body.get("object") == "response" or str(body.get("id", "")).startswith("resp_")


API = ProviderApi(
    name="openai",
    base_path="/v1",
    match=exact_path("/v1/responses"),
    authorised=lambda headers, _query: bearer_token(headers),
    read_request=lambda body, _endpoint: read_request(body),
    synthesise=_synthesise,
    errors=ErrorShapes(
        fault=_fault_reply,
        bad_request=_bad_request,
        unparseable_body=_unparseable_body,
        missing_auth=_missing_auth,
        not_found=_not_found,
        proxy_page=CLOUDFLARE_PAGE,
    ),
    request_headers=lambda: {"x-request-id": f"req_{secrets.token_hex(16)}"},
    replays_json=_replays_json,
    replays_stream=_replays_stream,
    answers_unknown_paths=True,
)
"""The OpenAI Responses API; paths no API serves get its 404."""
