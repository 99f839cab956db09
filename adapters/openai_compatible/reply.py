"""An OpenAI reply mapped to the router's :class:`AdapterResult` (pure).

``content`` is the answer text with the private-use citation tokens removed (for JSON answers,
the JSON text); ``parsed`` holds the JSON value when the request asked for JSON. A reply that
cannot be used at all raises :class:`ResponseParseError`: no answer text (``empty_answer``,
naming the status and why it was incomplete), a refusal (``refusal``), or JSON that does not
parse (``invalid_json``, naming the position and the first characters). With
``strict=False`` (offline extraction) nothing raises: the reason goes into ``warnings``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.base import AdapterResult
from adapters.json_answer import unholdable_json
from adapters.openai_compatible.annotations import as_mapping
from adapters.openai_compatible.citations import OpenAIExtraction, read_openai_reply
from adapters.openai_compatible.errors import OPENAI, OpenAIService
from router.errors import ResponseParseError
from router.types import LLMRequest, Usage

__all__ = ["map_compatible_reply", "parse_json_answer"]

_SHOWN_CHARS = 80
# Responses API names first, then Chat Completions names. Both APIs count cached input tokens in
# the input count and reasoning tokens in the output count, as Usage does.
_USAGE_FIELDS = (
    ("input_tokens", ("input_tokens", "prompt_tokens")),
    ("output_tokens", ("output_tokens", "completion_tokens")),
    ("total_tokens", ("total_tokens",)),
)
_USAGE_DETAILS = (
    ("cached_input_tokens", ("input_tokens_details", "prompt_tokens_details"), "cached_tokens"),
    (
        "reasoning_tokens",
        ("output_tokens_details", "completion_tokens_details"),
        "reasoning_tokens",
    ),
)
_SEARCH_TOOL_PREFIX = "web_search"


def map_compatible_reply(
    response: object,
    request: LLMRequest,
    *,
    strict: bool = True,
    service: OpenAIService = OPENAI,
) -> AdapterResult:
    """The :class:`AdapterResult` of one reply to ``request``.

    Raises ``ResponseParseError`` for a reply ``route()`` cannot use; with ``strict=False`` it
    never raises and says what was wrong in ``warnings`` instead. ``service`` names the
    OpenAI-compatible API the reply came from (OpenRouter's package maps its replies here), as
    :func:`read_openai_reply` says.
    """
    body = as_mapping(response) or {}
    extraction = read_openai_reply(body, service)
    status = body.get("status") if isinstance(body.get("status"), str) else None
    incomplete = _incomplete_reason(body)
    content = extraction.content
    problems: list[str] = []
    parsed = None
    try:
        if not content.strip():
            raise _unusable(extraction, status, incomplete, service)
        if request.wants_json:
            parsed = parse_json_answer(content, incomplete=incomplete, service=service)
    except ResponseParseError as error:
        if strict:
            raise
        problems.append(str(error))
    grounding = extraction.grounding
    return AdapterResult(
        content=content,
        parsed=parsed,
        model_version=body.get("model") if isinstance(body.get("model"), str) else None,
        grounded_effective=grounding.grounded_effective,
        tool_call_count=grounding.tool_call_count,
        web_search_queries=list(grounding.web_search_queries),
        citations=extraction.citations,
        attributions=extraction.attributions,
        usage=_usage(body.get("usage"), search_tool=_search_tool(body)),
        warnings=[grounding.warning, *problems] if grounding.warning else problems,
        metadata=_metadata(body, extraction, status, incomplete),
    )


def parse_json_answer(
    content: str, *, incomplete: str | None = None, service: OpenAIService = OPENAI
) -> Any:
    """The JSON value of an answer; ``ResponseParseError(reason="invalid_json")`` if it is not."""
    try:
        return json.loads(content)
    except json.JSONDecodeError as exc:
        shown = content.strip()[:_SHOWN_CHARS]
        cut = f" (the reply was cut short: {incomplete})" if incomplete else ""
        raise ResponseParseError(
            f"{service.label}: the answer is not valid JSON{cut}: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno} (char {exc.pos}); it starts with {shown!r}",
            vendor=service.vendor,
            reason="invalid_json",
        ) from exc
    except (ValueError, RecursionError) as exc:  # digits past int's limit, nesting past Python's
        raise unholdable_json(service.label, exc, vendor=service.vendor) from exc


def _unusable(
    extraction: OpenAIExtraction,
    status: str | None,
    incomplete: str | None,
    service: OpenAIService,
) -> ResponseParseError:
    if extraction.refusal:
        return ResponseParseError(
            f"{service.label}: the model refused: {extraction.refusal[:200]!r}",
            vendor=service.vendor,
            reason="refusal",
        )
    why = f"status {status or 'unknown'}" + (f", incomplete: {incomplete}" if incomplete else "")
    return ResponseParseError(
        f"{service.label}: the reply holds no answer text ({why})",
        vendor=service.vendor,
        reason="empty_answer",
    )


def _incomplete_reason(body: Mapping[str, Any]) -> str | None:
    details = as_mapping(body.get("incomplete_details"))
    reason = details.get("reason") if details is not None else None
    return reason if isinstance(reason, str) else None


def _usage(value: object, *, search_tool: str | None) -> Usage:
    usage = as_mapping(value)
    if usage is None:
        return Usage(search_tool=search_tool)
    counts: dict[str, int | None] = {}
    for field, names in _USAGE_FIELDS:
        counts[field] = next((usage[n] for n in names if type(usage.get(n)) is int), None)
    for field, groups, name in _USAGE_DETAILS:
        details = (as_mapping(usage.get(group)) for group in groups)
        counts[field] = next(
            (d[name] for d in details if d is not None and type(d.get(name)) is int), None
        )
    return Usage.model_validate({**counts, "search_tool": search_tool})


def _search_tool(body: Mapping[str, Any]) -> str | None:
    """The web search tool the call offered (``web_search`` or ``web_search_preview``).

    The Responses API echoes the request's tools; the search fee depends on which one ran.
    """
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else ():
        kind = (as_mapping(tool) or {}).get("type")
        if isinstance(kind, str) and kind.startswith(_SEARCH_TOOL_PREFIX):
            return kind
    return None


def _metadata(
    body: Mapping[str, Any],
    extraction: OpenAIExtraction,
    status: str | None,
    incomplete: str | None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "response_id": body.get("id") if isinstance(body.get("id"), str) else None,
        "status": status,
        "sources_seen": extraction.sources_seen,
        "sources_dropped": extraction.sources_dropped,
        "non_url_sources": list(extraction.grounding.non_url_sources),
    }
    if incomplete:
        metadata["incomplete_reason"] = incomplete
    if extraction.tokens_removed:
        metadata["citation_tokens_removed"] = extraction.tokens_removed
    return metadata
