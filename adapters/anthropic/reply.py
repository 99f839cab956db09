"""An Anthropic reply mapped to the router's :class:`AdapterResult` (pure).

``content`` is the answer: the reply's text blocks joined in order (for JSON answers, the JSON
text); ``parsed`` holds the JSON value when the request asked for JSON. JSON asked for in the
system prompt may come inside a Markdown code fence, which is taken off first. A reply that
cannot be used at all raises :class:`ResponseParseError`: no answer text (``empty_answer``,
naming the stop reason), a refusal (``refusal``), or JSON that does not parse
(``invalid_json``).

``usage.input_tokens`` counts every prompt token: the API reports the cached ones
(``cache_creation_input_tokens``, ``cache_read_input_tokens``) apart from ``input_tokens``;
``cached_input_tokens`` is the part read from the prompt cache.
A ``pause_turn`` stop (the server paused a long search turn) keeps what was answered and says
so in the warnings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from adapters.anthropic.citations import AnthropicExtraction, read_anthropic_reply
from adapters.anthropic.request import plan_steps
from adapters.base import AdapterResult
from adapters.json_answer import unholdable_json
from adapters.sdk.values import as_mapping
from router.errors import ResponseParseError
from router.types import LLMRequest, Usage

__all__ = ["map_anthropic_reply", "map_message", "parse_json_answer", "reply_result"]

_SHOWN_CHARS = 80
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)
_INPUT_COUNTS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def map_message(message: object, *, wants_json: bool, strict: bool = True) -> AdapterResult:
    """The :class:`AdapterResult` of one message of a call; ``ResponseParseError`` if unusable.

    With ``strict=False`` it never raises: a reply without text or with JSON that does not parse
    is kept, with the reason in ``warnings``.
    """
    body = as_mapping(message) or {}
    return reply_result(body, read_anthropic_reply(body), wants_json=wants_json, strict=strict)


def map_anthropic_reply(
    reply: object, request: LLMRequest, *, strict: bool = True
) -> AdapterResult:
    """The reply mapper of the registry (``extract()``, streams): one final reply to
    ``request``, step 1's when the request takes two calls (JSON with citations)."""
    wants_json = request.wants_json and len(plan_steps(request)) == 1
    return map_message(reply, wants_json=wants_json, strict=strict)


def reply_result(
    body: Mapping[str, Any],
    extraction: AnthropicExtraction,
    *,
    wants_json: bool,
    strict: bool = True,
) -> AdapterResult:
    """The result of a reply already read (a stream's final message is read as it arrives)."""
    content = extraction.content
    problems: list[str] = []
    parsed = None
    try:
        if not content.strip():
            raise _unusable(extraction.stop_reason)
        if wants_json:
            content = _unfenced(content)
            parsed = parse_json_answer(content, stop_reason=extraction.stop_reason)
    except ResponseParseError as error:
        if strict:
            raise
        problems.append(str(error))
    grounding = extraction.grounding
    warnings = [*grounding.warnings, *problems]
    if extraction.stop_reason == "pause_turn":
        warnings.append(
            "[CITATIONS] Anthropic: the turn was paused (pause_turn) before it finished; "
            "the answer may be incomplete"
        )
    model = body.get("model")
    return AdapterResult(
        content=content,
        parsed=parsed,
        model_version=model if isinstance(model, str) else None,
        grounded_effective=grounding.grounded_effective,
        tool_call_count=grounding.tool_call_count,
        web_search_queries=list(grounding.web_search_queries),
        citations=extraction.citations,
        # A fenced JSON answer is unwrapped: offsets into the reply's text no longer apply.
        attributions=extraction.attributions if content is extraction.content else [],
        usage=usage_of(body.get("usage")),
        warnings=warnings,
        metadata={
            "two_step": False,
            "response_id": body.get("id") if isinstance(body.get("id"), str) else None,
            "stop_reason": extraction.stop_reason,
            "sources_seen": extraction.sources_seen,
            "sources_dropped": extraction.sources_dropped,
            "search_errors": list(grounding.search_errors),
            # The model's words before its last search ("Let me search for ..."): the answer
            # proper is content[answer_start:]; both are "" / 0 when there was none.
            "preamble": extraction.content[: extraction.answer_start],
            "answer_start": extraction.answer_start,
        },
    )


def parse_json_answer(content: str, *, stop_reason: str | None = None) -> Any:
    """The JSON value of an answer; ``ResponseParseError(reason="invalid_json")`` if it is not."""
    try:
        return json.loads(content)
    except (ValueError, RecursionError) as exc:  # digits past int's limit, nesting past Python's
        if not isinstance(exc, json.JSONDecodeError):
            raise unholdable_json("Anthropic", exc, vendor="anthropic") from exc
        shown = content.strip()[:_SHOWN_CHARS]
        cut = " (the reply was cut short: max_tokens)" if stop_reason == "max_tokens" else ""
        raise ResponseParseError(
            f"Anthropic: the answer is not valid JSON{cut}: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno} (char {exc.pos}); it starts with {shown!r}",
            vendor="anthropic",
            reason="invalid_json",
        ) from exc


def usage_of(value: object) -> Usage:
    """Token counts; input counts the cached prompt tokens too (see the module docstring)."""
    usage = as_mapping(value)
    if usage is None:
        return Usage()
    inputs = [usage.get(name) for name in _INPUT_COUNTS]
    counted = [n for n in inputs if type(n) is int]
    input_tokens = sum(counted) if type(inputs[0]) is int else None
    output = usage.get("output_tokens")
    output_tokens = output if type(output) is int else None
    total = (
        input_tokens + output_tokens
        if input_tokens is not None and output_tokens is not None
        else None
    )
    cached = usage.get("cache_read_input_tokens")
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=total,
        cached_input_tokens=cached if type(cached) is int else None,
    )


def _unfenced(content: str) -> str:
    match = _FENCE.match(content)
    return match["body"] if match else content


def _unusable(stop_reason: str | None) -> ResponseParseError:
    if stop_reason == "refusal":
        return ResponseParseError(
            "Anthropic: the model refused to answer (stop_reason refusal)",
            vendor="anthropic",
            reason="refusal",
        )
    return ResponseParseError(
        f"Anthropic: the reply holds no answer text (stop_reason {stop_reason or 'unknown'})",
        vendor="anthropic",
        reason="empty_answer",
    )
