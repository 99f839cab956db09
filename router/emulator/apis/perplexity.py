"""Perplexity Sonar ``POST /chat/completions``: read the request, synthesise the reply and stream.

The reply carries the quirks of the recorded Sonar bodies (provider-quirks section 4): the
answer cites its sources with ``[n]`` markers after each claim, 1-based positions in the
top-level ``citations`` list of URLs, and not every position is cited; ``search_results``
(``title, url, date, last_updated, snippet, source``) lists the same sources in the same order,
with ``date`` null on some and missing on others; ``usage`` reports ``search_context_size``,
``num_search_queries`` and the ``cost`` of the call. A stream repeats the full ``citations``
and ``search_results`` in every chunk; its last chunk has the ``finish_reason`` and the usage.

Requests are read as Sonar reads them: ``disable_search`` turns the search off,
``web_search_options.user_location.country`` localises the answer, and ``response_format`` of
type ``json_schema`` asks for JSON that follows the schema. ``search_domain_filter`` (at most
20 domains, all allowed or all ``-``blocked), ``search_recency_filter`` and
``web_search_options.search_context_size`` are checked as the API checks them (HTTP 400
otherwise); the usage reports the context size asked for. ``sonar-reasoning`` models put their
reasoning in a ``<think>`` block before the answer, a stray ``[n]`` marker in it included.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
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
from router.emulator.ids import digest, rng_for
from router.emulator.json_values import SchemaFiller
from router.emulator.reply import Reply, openai_json
from router.emulator.sse import data_frame
from router.emulator.wire import Ask, BadRequest, JsonFormat

__all__ = ["API", "PATH", "build_response", "perplexity_error", "read_request", "stream_chunks"]

PATH = "/chat/completions"
# Per request by search context size (Sonar's list prices; low as the recorded bodies show).
_REQUEST_COSTS = {"low": 0.005, "medium": 0.008, "high": 0.012}
_TOKEN_COSTS = {"sonar": (1.0, 1.0), "sonar-pro": (3.0, 15.0)}  # $ per million in, out
_MAX_DOMAINS = 20
_RECENCY = ("hour", "day", "week", "month", "year")
_CONTEXT_SIZES = ("low", "medium", "high")
_REASONING_MODELS = "sonar-reasoning"


def read_request(body: Mapping[str, Any]) -> Ask:
    """The :class:`Ask` of a Sonar request; raises :class:`BadRequest` as the API would."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("Invalid model ''. Permitted models can be found in the documentation.")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages: at least one message is required", param="messages")
    user_texts = [
        str(message.get("content", ""))
        for message in messages
        if isinstance(message, Mapping) and message.get("role") == "user"
    ]
    prompt = user_texts[-1] if user_texts else ""
    options = body.get("web_search_options")
    _check_search_filters(body, options)
    location = options.get("user_location") if isinstance(options, Mapping) else None
    country = location.get("country") if isinstance(location, Mapping) else None
    return Ask(
        api="perplexity",
        model=model,
        prompt=prompt,
        question=prompt,
        stream=body.get("stream") is True,
        search=body.get("disable_search") is not True,
        json_format=_json_format(body.get("response_format")),
        country=country if isinstance(country, str) else None,
        echo=body,
    )


def _check_search_filters(body: Mapping[str, Any], options: object) -> None:
    """Refuse the filter values the API refuses (HTTP 400)."""
    domains = body.get("search_domain_filter")
    if domains is not None:
        if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
            raise BadRequest(
                "search_domain_filter must be a list of strings", param="search_domain_filter"
            )
        if len(domains) > _MAX_DOMAINS:
            raise BadRequest(
                f"search_domain_filter takes at most {_MAX_DOMAINS} domains",
                param="search_domain_filter",
            )
        if len({domain.startswith("-") for domain in domains}) > 1:
            raise BadRequest(
                "search_domain_filter cannot mix allowed and denied (-) domains",
                param="search_domain_filter",
            )
    recency = body.get("search_recency_filter")
    if recency is not None and recency not in _RECENCY:
        raise BadRequest(
            f"search_recency_filter must be one of {', '.join(_RECENCY)}",
            param="search_recency_filter",
        )
    size = options.get("search_context_size") if isinstance(options, Mapping) else None
    if size is not None and size not in _CONTEXT_SIZES:
        raise BadRequest(
            f"web_search_options.search_context_size must be one of {', '.join(_CONTEXT_SIZES)}",
            param="web_search_options",
        )


def _json_format(value: object) -> JsonFormat | None:
    if not isinstance(value, Mapping) or value.get("type") != "json_schema":
        return None
    spec = value.get("json_schema")
    schema = spec.get("schema") if isinstance(spec, Mapping) else None
    if not isinstance(schema, Mapping):
        raise BadRequest("response_format.json_schema.schema is required", param="response_format")
    return JsonFormat(schema)


def build_response(
    ask: Ask, answer: Answer, *, fault: FaultKind | None, serial: str, created: int
) -> dict[str, Any]:
    """The final chat completion for ``ask``, as Sonar returns it."""
    rng = rng_for("perplexity", ask.question, ask.model)
    searched = ask.search and fault not in ("no_search", "empty_grounding")
    citing = searched and fault != "no_citations"
    sources = [source for source in answer.sources if not source.vertex_only]
    if ask.json_format is not None:
        filler = SchemaFiller(answer, rng_for("perplexity-json", ask.question), country=ask.country)
        text = json.dumps(filler.value(ask.json_format.schema), ensure_ascii=False)
    elif citing:
        text = _cited_text(answer, [answer.sources.index(source) for source in sources])
    else:
        text = answer.plain_text
    if ask.model.startswith(_REASONING_MODELS):
        text = _THINK_BLOCK.format(topic=ask.question[:60]) + text
    body: dict[str, Any] = {
        "id": str(uuid.UUID(bytes=digest(serial, "perplexity")[:16], version=4)),
        "model": ask.model,
        "created": created,
        "usage": _usage(ask, text, searched, rng),
    }
    if citing:
        body["citations"] = [source.url for source in sources]
        body["search_results"] = [_search_result(source, rng) for source in sources]
    elif searched:
        body["citations"] = []
    body["object"] = "chat.completion"
    body["choices"] = [
        {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "delta": {"role": "assistant", "content": ""},
            "finish_reason": "stop",
        }
    ]
    return body


_THINK_BLOCK = (
    "<think>\nThe user asks: {topic}. The first search result [1] looks relevant; I will "
    "answer from the sources and cite them.\n</think>\n\n"
)


def _cited_text(answer: Answer, listed: list[int]) -> str:
    """The claims, each followed by the ``[n]`` markers of the listed sources it cites."""
    sentences = []
    for claim in answer.claims:
        markers = "".join(f"[{listed.index(i) + 1}]" for i in claim.cites if i in listed)
        sentences.append(claim.text + markers)
    return " ".join(sentences)


def _search_result(source: Any, rng: Any) -> dict[str, Any]:
    year = rng.randint(2019, 2026)
    result: dict[str, Any] = {"title": source.title, "url": source.url}
    roll = rng.random()
    if roll < 0.7:
        result["date"] = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    elif roll < 0.85:
        result["date"] = None
    result["last_updated"] = f"2026-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}"
    result["snippet"] = f"{source.title}: an overview of the topic, its history and what is new."
    result["source"] = "web"
    return result


def _usage(ask: Ask, text: str, searched: bool, rng: Any) -> dict[str, Any]:
    prompt_tokens = max(1, len(ask.prompt) // 4)
    completion_tokens = max(1, len(text) // 4)
    per_in, per_out = _TOKEN_COSTS.get(ask.model, _TOKEN_COSTS["sonar"])
    input_cost = round(prompt_tokens * per_in / 1e6, 5)
    output_cost = round(completion_tokens * per_out / 1e6, 5)
    size = _context_size(ask)
    request_cost = _REQUEST_COSTS.get(size, _REQUEST_COSTS["low"]) if searched else 0.0
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "search_context_size": size,
        "cost": {
            "input_tokens_cost": input_cost,
            "output_tokens_cost": output_cost,
            "request_cost": request_cost,
            "total_cost": round(input_cost + output_cost + request_cost, 5),
        },
    }
    if searched:
        usage["num_search_queries"] = rng.randint(1, 3)
    return usage


def _context_size(ask: Ask) -> str:
    options = ask.echo.get("web_search_options")
    size = options.get("search_context_size") if isinstance(options, Mapping) else None
    return size if isinstance(size, str) else "low"


def stream_chunks(body: Mapping[str, Any], *, serial: str) -> list[dict[str, Any]]:
    """The chunks that deliver ``body``: text in pieces, the sources repeated in every chunk."""
    text: str = body["choices"][0]["message"]["content"]
    rng = rng_for("perplexity-chunks", serial)
    cuts = [0]
    while cuts[-1] < len(text):
        cuts.append(min(len(text), cuts[-1] + rng.randint(8, 60)))
    pieces = [text[a:b] for a, b in itertools.pairwise(cuts)] or [""]
    envelope = {k: v for k, v in body.items() if k not in ("choices", "usage", "object")}
    chunks: list[dict[str, Any]] = []
    for number, piece in enumerate(pieces):
        last = number == len(pieces) - 1
        delta: dict[str, Any] = {"content": piece}
        if number == 0:
            delta = {"role": "assistant", **delta}
        chunk = {
            **envelope,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if last else None}],
        }
        if last:
            chunk["usage"] = body["usage"]
        chunks.append(chunk)
    return chunks


# -- errors: {"error": {"message", "type", "code"}}; its proxy answers a bad key in HTML -------

_UNAUTHORISED_PAGE = (
    "<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n"
    "<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>openresty/1.27.4"
    "</center>\r\n</body>\r\n</html>\r\n"
)
_ERROR_KINDS = {
    400: ("bad_request", "Invalid value in the request: the request could not be processed."),
    429: ("rate_limit_exceeded", "Rate limit exceeded. Please retry after a short while."),
    500: ("internal_server_error", "Internal server error."),
    503: ("service_unavailable", "The service is temporarily unavailable."),
}


def perplexity_error(
    status: int, message: str, *, kind: str, headers: dict[str, str] | None = None
) -> Reply:
    """A Perplexity error reply: ``{"error": {"message", "type", "code"}}``."""
    body = {"error": {"message": message, "type": kind, "code": status}}
    return Reply(status, openai_json(body).encode(), headers=headers or {})


def _missing_auth() -> Reply:
    return Reply(401, _UNAUTHORISED_PAGE.encode(), content_type="text/html")


def _fault_reply(status: int, retry_after_s: float | None, _model: str) -> Reply:
    if status == 401:
        return _missing_auth()
    headers = {}
    if retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(retry_after_s)
    kind, message = _ERROR_KINDS.get(status, _ERROR_KINDS[503])
    return perplexity_error(status, message, kind=kind, headers=headers)


def _bad_request(message: str, _param: str | None, _code: str | None) -> Reply:
    kind = "invalid_model" if message.startswith("Invalid model") else "bad_request"
    return perplexity_error(400, message, kind=kind)


# -- the row ---------------------------------------------------------------------------------


def _synthesise(
    ask: Ask, answer: Answer, fault: FaultKind | None, serial: str, _sse: bool
) -> list[bytes] | Reply:
    body = build_response(ask, answer, fault=fault, serial=serial, created=int(time.time()))
    if ask.stream:
        return [data_frame(chunk) for chunk in stream_chunks(body, serial=serial)]
    return Reply(200, openai_json(body).encode())


def _replays_stream(text: str) -> bool:
    return text.lstrip().startswith("data:") and '"chat.completion.chunk"' in text


def _replays_json(body: Mapping[str, Any]) -> bool:
    return isinstance(body.get("choices"), list) and (
        "citations" in body or "search_results" in body
    )


API = ProviderApi(
    name="perplexity",
    base_path="",
    match=exact_path(PATH),
    claims_path=lambda path: path.startswith("/chat/"),
    authorised=lambda headers, _query: bearer_token(headers),
    read_request=lambda body, _endpoint: read_request(body),
    synthesise=_synthesise,
    errors=ErrorShapes(
        fault=_fault_reply,
        bad_request=_bad_request,
        unparseable_body=lambda: perplexity_error(
            400, "Invalid JSON in the request body.", kind="bad_request"
        ),
        missing_auth=_missing_auth,
        not_found=lambda method, path: perplexity_error(
            404, f"Not Found ({method} {path})", kind="not_found"
        ),
        proxy_page=CLOUDFLARE_PAGE,
    ),
    replays_json=_replays_json,
    replays_stream=_replays_stream,
)
"""Perplexity's Sonar chat completions."""
