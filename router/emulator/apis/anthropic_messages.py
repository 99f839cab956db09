"""Anthropic Messages API: read a ``POST /v1/messages`` body, synthesise the reply and its stream.

The reply carries the quirks measured on recorded bodies (provider-quirks.md section 3): one
``server_tool_use`` (``web_search``, ``input.query``) and one ``web_search_tool_result`` per
search, results as ``{type, url, title, encrypted_content, page_age}`` with ``page_age`` null
on about half and relative ("6 days ago") or absolute otherwise, a third search that found
nothing (``content: []``); the answer split into many small text blocks, where only the
citing ones have a ``citations`` key (``web_search_result_location`` with ``url, title,
cited_text, encrypted_index``, ``cited_text`` at most 153 characters), and a URL cited by
several blocks. Documents sent with citations enabled are cited with ``char_location``
(plain text), ``page_location`` (PDF) or ``content_block_location`` (chunks), quoting their
own text. JSON asked for in the system prompt comes back inside a Markdown code fence, as
Claude writes it; ``output_config.format`` gives bare JSON, and the API's refusal to combine
it with citations is reproduced. Streams send ``citations_delta`` events (one citation each),
``input_json_delta`` pieces of the search query, ``ping`` events, and some ``data:`` lines
with spaces after the JSON, as one recorded stream has them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from collections.abc import Iterator, Mapping
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
from router.emulator.ids import digest, rng_for
from router.emulator.json_values import SchemaFiller
from router.emulator.reply import Reply, openai_json
from router.emulator.sse import anthropic_event
from router.emulator.wire import Ask, BadRequest, JsonFormat

__all__ = ["API", "anthropic_error", "build_message", "read_request", "stream_events"]

_SEARCH_TOOL = re.compile(r"^web_search_\d{8}$")
_CITED_TEXT_LIMIT = 153
_PAGE_AGES = (None, None, "6 days ago", "1 week ago", "2 days ago", None, "May 11, 2026")
_TEXT_DELTA_CHARS = 24
_QUERY_PIECE_CHARS = 9


def read_request(body: Mapping[str, Any]) -> Ask:
    """The :class:`Ask` in a Messages request; raises :class:`BadRequest` as the API would."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("model: Field required")
    if not isinstance(body.get("max_tokens"), int):
        raise BadRequest("max_tokens: Field required")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages: at least one message is required")
    tools = body.get("tools") or []
    if not isinstance(tools, list):
        raise BadRequest("tools: Input should be a valid list")
    search_tool = next(
        (
            tool
            for tool in tools
            if isinstance(tool, Mapping) and _SEARCH_TOOL.match(str(tool.get("type", "")))
        ),
        None,
    )
    if (
        search_tool is not None
        and search_tool.get("allowed_domains") is not None
        and search_tool.get("blocked_domains") is not None
    ):
        raise BadRequest(
            "tools.0: Cannot specify both allowed_domains and blocked_domains in the same request"
        )
    documents = _documents(messages)
    json_format = _json_format(
        body,
        cited=search_tool is not None
        or any(doc.get("citations", {}).get("enabled") is True for doc in documents),
    )
    prompt = _last_user_text(messages)
    location = search_tool.get("user_location") if search_tool else None
    country = location.get("country") if isinstance(location, Mapping) else None
    return Ask(
        api="anthropic",
        model=model,
        prompt=prompt,
        question=prompt,
        stream=body.get("stream") is True,
        search=search_tool is not None,
        json_format=json_format,
        country=country if isinstance(country, str) else None,
        echo={"documents": documents, "system": body.get("system")},
    )


def _json_format(body: Mapping[str, Any], *, cited: bool) -> JsonFormat | None:
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, Mapping) else None
    if not isinstance(fmt, Mapping):
        return None
    if fmt.get("type") != "json_schema" or not isinstance(fmt.get("schema"), Mapping):
        raise BadRequest("output_config.format: a json_schema format needs a schema")
    if cited:
        raise BadRequest(
            "Citations are not supported together with structured outputs (output_config.format)"
        )
    return JsonFormat(fmt["schema"])


def _documents(messages: list[Any]) -> list[Mapping[str, Any]]:
    found: list[Mapping[str, Any]] = []
    for message in messages:
        content = message.get("content") if isinstance(message, Mapping) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, Mapping) and block.get("type") == "document":
                found.append(block)
    return found


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "\n".join(
                    str(block.get("text", ""))
                    for block in content
                    if isinstance(block, Mapping) and block.get("type") == "text"
                )
    return ""


def _wants_json_text(ask: Ask) -> bool:
    """JSON asked for in words: the system prompt or the last turn says JSON."""
    system = ask.echo.get("system")
    said = f"{system if isinstance(system, str) else ''}\n{ask.question}".lower()
    return "json" in said


def build_message(
    ask: Ask, answer: Answer, *, fault: FaultKind | None, serial: str
) -> dict[str, Any]:
    """The final Messages body for ``ask``, as ``POST /v1/messages`` returns it."""
    rng = rng_for("anthropic", ask.question, ask.model)
    searched = ask.search and fault not in ("no_search", "empty_grounding")
    citing = searched and fault != "no_citations"
    content: list[dict[str, Any]] = []
    searches = 0
    found: dict[int, tuple[str, str]] = {}  # source index -> (url, title) of a returned result
    if searched:
        content.append({"type": "text", "text": f"I'll search for {answer.topic}."})
        for number, (query, share) in enumerate(_search_plan(answer)):
            tool_id = _tool_id(serial, number)
            content.append(
                {
                    "type": "server_tool_use",
                    "id": tool_id,
                    "name": "web_search",
                    "input": {"query": query},
                }
            )
            results = []
            for index in share if citing else ():  # no_citations: the searches found nothing
                source = answer.sources[index]
                found.setdefault(index, (source.url, source.title))
                results.append(
                    {
                        "type": "web_search_result",
                        "title": source.title,
                        "url": source.url,
                        "encrypted_content": _blob(serial, source.url, size=180),
                        "page_age": _PAGE_AGES[rng.randrange(len(_PAGE_AGES))],
                    }
                )
            content.append(
                {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": results}
            )
            searches += 1
    documents = ask.echo.get("documents") or []
    if ask.json_format is not None or _wants_json_text(ask):
        content.append({"type": "text", "text": _json_text(ask, answer)})
    else:
        content.extend(
            _answer_blocks(answer, found if citing else {}, searched=searched, serial=serial)
        )
        content.extend(_document_blocks(documents))
    text_tokens = sum(len(str(block.get("text", ""))) // 4 for block in content)
    usage: dict[str, Any] = {
        "input_tokens": len(ask.prompt) // 4 + 12 + searches * 2400,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": text_tokens + 5,
        "service_tier": "standard",
    }
    if searches:
        usage["server_tool_use"] = {"web_search_requests": searches}
    return {
        "id": f"msg_01{_base62(serial, 'msg', 22)}",
        "type": "message",
        "role": "assistant",
        "model": ask.model,
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage,
    }


def _search_plan(answer: Answer) -> list[tuple[str, list[int]]]:
    """Queries and the sources each returns; a third search finds nothing, as one recorded."""
    web = [i for i, s in enumerate(answer.sources) if not s.vertex_only]
    queries = list(answer.queries) or [answer.topic]
    if len(queries) == 1:
        return [(queries[0], web)]
    half = (len(web) + 1) // 2
    plan = [(queries[0], web[:half]), (queries[1], web[half:])]
    plan.extend((query, []) for query in queries[2:3])
    return plan


def _answer_blocks(
    answer: Answer, found: Mapping[int, tuple[str, str]], *, searched: bool, serial: str
) -> list[dict[str, Any]]:
    """The answer as small text blocks; only the citing ones carry ``citations``."""
    intro = "Based on the search results, here is what I found:\n\n" if searched else ""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": intro}] if intro else []
    for number, claim in enumerate(answer.claims):
        citations = [
            {
                "type": "web_search_result_location",
                "cited_text": _cited_text(claim.text),
                "url": found[index][0],
                "title": found[index][1],
                "encrypted_index": _blob(serial, f"{number}:{index}", size=72),
            }
            for index in claim.cites
            if index in found
        ]
        block: dict[str, Any] = {"type": "text", "text": claim.text.rstrip(".")}
        if citations:
            block["citations"] = citations
        blocks.append(block)
        blocks.append({"type": "text", "text": ". " if number + 1 < len(answer.claims) else "."})
    return blocks


def _document_blocks(documents: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One sentence per cited document, quoting its own text with its own location type."""
    blocks: list[dict[str, Any]] = []
    for index, document in enumerate(documents):
        config = document.get("citations")
        if not (isinstance(config, Mapping) and config.get("enabled") is True):
            continue
        title = document.get("title") if isinstance(document.get("title"), str) else None
        citation = _document_citation(document.get("source"), index, title)
        if citation is None:
            continue
        name = title or f"document {index + 1}"
        blocks.append({"type": "text", "text": f"\n\nAccording to {name}, "})
        quoted = citation["cited_text"].strip() or "it makes this point"
        blocks.append({"type": "text", "text": quoted.rstrip("."), "citations": [citation]})
        blocks.append({"type": "text", "text": "."})
    return blocks


def _document_citation(source: object, index: int, title: str | None) -> dict[str, Any] | None:
    if not isinstance(source, Mapping):
        return None
    kind = source.get("type")
    base = {"document_index": index, "document_title": title}
    if kind == "text" and isinstance(source.get("data"), str):
        text = source["data"]
        end = _first_sentence_end(text)
        return {
            "type": "char_location",
            "cited_text": text[:end],
            **base,
            "start_char_index": 0,
            "end_char_index": end,
        }
    if kind == "content" and isinstance(source.get("content"), list):
        chunks = [c.get("text", "") for c in source["content"] if isinstance(c, Mapping)]
        if not chunks:
            return None
        return {
            "type": "content_block_location",
            "cited_text": str(chunks[0]),
            **base,
            "start_block_index": 0,
            "end_block_index": 1,
        }
    if kind == "base64":
        return {
            "type": "page_location",
            "cited_text": "",
            **base,
            "start_page_number": 1,
            "end_page_number": 2,
        }
    return None


def _first_sentence_end(text: str) -> int:
    match = re.search(r"[.!?](\s|$)", text)
    end = match.start(0) + 1 if match else len(text)
    return min(end, 400) if end else len(text)


def _cited_text(claim: str) -> str:
    """The passage of the page the claim rests on: close to the claim, at most 153 characters."""
    text = claim.replace("**", "")
    if len(text) <= _CITED_TEXT_LIMIT:
        return text
    return text[: _CITED_TEXT_LIMIT - 3].rstrip() + "..."


def _json_text(ask: Ask, answer: Answer) -> str:
    schema = ask.json_format.schema if ask.json_format is not None else None
    filler = SchemaFiller(answer, rng_for("anthropic-json", ask.question), country=ask.country)
    value = json.dumps(filler.value(schema), ensure_ascii=False, indent=2)
    if ask.json_format is not None:
        return value
    return f"```json\n{value}\n```"  # asked for in words, Claude fences it


def _tool_id(serial: str, number: int) -> str:
    return f"srvtoolu_01{_base62(serial, f'tool{number}', 22)}"


def _base62(serial: str, part: str, size: int) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    number = int.from_bytes(digest(serial, part), "big")
    chars = []
    for _ in range(size):
        number, rest = divmod(number, 62)
        chars.append(alphabet[rest])
    return "".join(chars)


def _blob(serial: str, part: str, *, size: int) -> str:
    return base64.b64encode(hashlib.shake_256(digest(serial, part)).digest(size)).decode()


# -- streaming ----------------------------------------------------------------------------


def stream_events(message: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """The SSE events of ``message`` as the API streams it: (event name, data JSON)."""
    start = {**message, "content": [], "stop_reason": None}
    usage = dict(message.get("usage") or {})
    start["usage"] = {**usage, "output_tokens": 1}
    start["usage"].pop("server_tool_use", None)
    yield "message_start", openai_json({"type": "message_start", "message": start})
    for index, block in enumerate(message.get("content") or []):
        yield from _block_events(index, block)
        if index == 1:
            yield "ping", json.dumps({"type": "ping"})
    delta_usage = {k: v for k, v in usage.items() if k != "service_tier"}
    yield (
        "message_delta",
        openai_json(
            {
                "type": "message_delta",
                "delta": {"stop_reason": message.get("stop_reason"), "stop_sequence": None},
                "usage": delta_usage,
            }
        ),
    )
    yield "message_stop", openai_json({"type": "message_stop"})


def _block_events(index: int, block: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    kind = block.get("type")
    # One recorded stream pads some data lines with spaces after the JSON.
    pad = " " * (index % 3) * 4
    if kind == "text":
        first: dict[str, Any] = {"type": "text", "text": ""}
        if "citations" in block:
            first = {"citations": [], **first}
        yield "content_block_start", _event("content_block_start", index, content_block=first)
        for citation in block.get("citations") or []:
            delta = {"type": "citations_delta", "citation": citation}
            yield "content_block_delta", _event("content_block_delta", index, delta=delta) + pad
        text = str(block.get("text", ""))
        for piece in _pieces(text, _TEXT_DELTA_CHARS):
            delta = {"type": "text_delta", "text": piece}
            yield "content_block_delta", _event("content_block_delta", index, delta=delta)
    elif kind == "server_tool_use":
        first = {**block, "input": {}}
        yield "content_block_start", _event("content_block_start", index, content_block=first)
        partial = openai_json(block.get("input") or {})
        for piece in ["", *_pieces(partial, _QUERY_PIECE_CHARS)]:
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield "content_block_delta", _event("content_block_delta", index, delta=delta) + pad
    else:
        yield "content_block_start", _event("content_block_start", index, content_block=block)
    yield "content_block_stop", _event("content_block_stop", index) + pad


def _event(kind: str, index: int, **fields: Any) -> str:
    return openai_json({"type": kind, "index": index, **fields})


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# -- errors: {"type": "error", "error": {"type", "message"}, "request_id"} -------------------

_ERRORS = {
    400: ("invalid_request_error", "The request could not be processed."),
    401: ("authentication_error", "invalid x-api-key"),
    403: (
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    404: ("not_found_error", "Not found"),
    429: (
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per "
        "minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.",
    ),
    500: ("api_error", "Internal server error"),
    503: ("api_error", "Service unavailable"),
    529: ("overloaded_error", "Overloaded"),
}


def anthropic_error(
    status: int, message: str | None = None, *, headers: dict[str, str] | None = None
) -> Reply:
    """An Anthropic error reply, typed as the API types each status."""
    kind, default = _ERRORS.get(status, ("api_error", "Internal server error"))
    body = {
        "type": "error",
        "error": {"type": kind, "message": message or default},
        "request_id": "req_011CEmulator" + "0" * 12,
    }
    return Reply(status, openai_json(body).encode(), headers=headers or {})


def _fault_reply(status: int, retry_after_s: float | None, _model: str) -> Reply:
    headers: dict[str, str] = {}
    if retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(retry_after_s)
    if status == 429:
        headers |= {"anthropic-ratelimit-requests-limit": "50"}
        headers["anthropic-ratelimit-requests-remaining"] = "0"
    return anthropic_error(status, headers=headers)


# -- the row ---------------------------------------------------------------------------------


def _synthesise(
    ask: Ask, answer: Answer, fault: FaultKind | None, serial: str, _sse: bool
) -> list[bytes] | Reply:
    message = build_message(ask, answer, fault=fault, serial=serial)
    if ask.stream:
        return [anthropic_event(kind, data) for kind, data in stream_events(message)]
    return Reply(200, openai_json(message).encode())


def _authorised(headers: Mapping[str, str], _query: Mapping[str, str]) -> bool:
    return bearer_token(headers) or bool(headers.get("x-api-key", "").strip())


API = ProviderApi(
    name="anthropic",
    base_path="",
    match=exact_path("/v1/messages"),
    claims_path=lambda path: path.startswith("/v1/messages"),
    authorised=_authorised,
    read_request=lambda body, _endpoint: read_request(body),
    synthesise=_synthesise,
    errors=ErrorShapes(
        fault=_fault_reply,
        bad_request=lambda message, _param, _code: anthropic_error(400, message),
        unparseable_body=lambda: anthropic_error(
            400, "There was an error parsing the body of your request."
        ),
        missing_auth=lambda: anthropic_error(401, "x-api-key header is required"),
        not_found=lambda method, path: anthropic_error(404, f"Not found: {method} {path}"),
        proxy_page=CLOUDFLARE_PAGE,
    ),
    request_headers=lambda: {"request-id": f"req_011C{secrets.token_hex(10)}"},
    # Its events are named, and a client skips a nameless one.
    stream_opening=b"event: message_start\n",
    replays_json=lambda body: (
        body.get("type") == "message" and isinstance(body.get("content"), list)
    ),
    replays_stream=lambda text: "event: message_start" in text,
)
"""The Anthropic Messages API."""
