"""A Vertex AI or Gemini API reply mapped to the router's ``AdapterResult`` (pure).

The registry's mappers (``adapters.base.ReplyMapper``, used by ``extract()`` and streams) are
:func:`map_vertex_reply` and :func:`map_gemini_reply`, one per API of this package; both APIs
send the same ``generateContent`` body. One final body maps to the result of a one-call request,
or to step 1's result when the request takes two calls (grounded JSON: the reply is step 1's
prose, and the reshape is a call of its own, see ``two_step``). The body is read by
:func:`adapters.vertex.citations.read_vertex_reply`; the result is built here.

A reply with no answer text cannot be used (a blocked prompt, a safety stop, thinking that
used up every output token): ``ResponseParseError`` saying which. A JSON answer that does not
parse is a ``ResponseParseError(reason="invalid_json")`` naming where and how it starts.
"""

from __future__ import annotations

import json
from typing import Any

from adapters.base import AdapterResult
from adapters.json_answer import unholdable_json
from adapters.two_step import sum_usage
from adapters.vertex.apis import GEMINI, VERTEX, GoogleApi
from adapters.vertex.body import reply_body
from adapters.vertex.citations import VertexReply, read_vertex_reply
from adapters.vertex.request import plan_steps
from router.errors import ResponseParseError
from router.types import LLMRequest

__all__ = [
    "json_answer",
    "map_gemini_reply",
    "map_vertex_reply",
    "reply_metadata",
    "require_text",
    "single_result",
    "sum_usage",
]

_SHOWN_CHARACTERS = 60


def map_vertex_reply(reply: object, request: LLMRequest, *, strict: bool = True) -> AdapterResult:
    """The result of one final Vertex AI reply to ``request`` (step 1's, for a two-call request).

    ``strict=False`` never raises: an unusable reply keeps what it has and says why in
    ``warnings``.
    """
    return _mapped_result(reply, request, strict=strict, api=VERTEX)


def map_gemini_reply(reply: object, request: LLMRequest, *, strict: bool = True) -> AdapterResult:
    """:func:`map_vertex_reply` for a Gemini Developer API reply (citations name "gemini")."""
    return _mapped_result(reply, request, strict=strict, api=GEMINI)


def _mapped_result(
    reply: object, request: LLMRequest, *, strict: bool, api: GoogleApi
) -> AdapterResult:
    try:
        body = reply_body(reply)
    except ValueError as exc:  # an SDK object holding a body that is not JSON
        if strict:
            raise ResponseParseError(
                f"{api.label} reply body is not JSON: {exc}", vendor=api.vendor, reason="non_json"
            ) from exc
        body = {}
    wants_json = request.wants_json and len(plan_steps(request)) == 1
    return single_result(read_vertex_reply(body, api=api), wants_json=wants_json, strict=strict)


def require_text(reply: VertexReply, *, step: str) -> str:
    """The reply's answer text; a reply without any is a ``ResponseParseError``."""
    if reply.content.strip():
        return reply.content
    why = [
        f"finish reason {reply.finish_reason}" if reply.finish_reason else "",
        f"prompt blocked: {reply.block_reason}" if reply.block_reason else "",
    ]
    said = "; ".join(part for part in why if part) or "no candidate"
    raise ResponseParseError(
        f"{reply.api.label} returned no answer text in the {step} call ({said})",
        vendor=reply.api.vendor,
        reason="empty_response",
    )


def json_answer(text: str, api: GoogleApi = VERTEX) -> Any:
    """The JSON value of an answer given in JSON mode."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResponseParseError(
            f"{api.label}'s JSON answer is not valid JSON: {exc.msg} at line {exc.lineno} column "
            f"{exc.colno} (character {exc.pos} of {len(text)}); it starts "
            f"{text[:_SHOWN_CHARACTERS]!r}",
            vendor=api.vendor,
            reason="invalid_json",
        ) from exc
    except (ValueError, RecursionError) as exc:  # digits past int's limit, nesting past Python's
        raise unholdable_json(api.label, exc, vendor=api.vendor) from exc


def reply_metadata(reply: VertexReply) -> dict[str, Any]:
    """The small, JSON-able extras of a reply worth keeping in the response's metadata."""
    return {
        "response_id": reply.response_id,
        "finish_reason": reply.finish_reason,
        "tool_call_evidence": list(reply.grounding.tool_call_evidence),
        **reply.grounding.counts(),
    }


def single_result(reply: VertexReply, *, wants_json: bool, strict: bool = True) -> AdapterResult:
    """The result of a one-call request (grounded text, JSON without grounding, plain text).

    With ``strict=False`` a reply without text or with JSON that does not parse is kept, with
    the reason in ``warnings``, instead of raising ``ResponseParseError``.
    """
    problems: list[str] = []
    parsed = None
    try:
        content = require_text(reply, step="generateContent")
        parsed = json_answer(content, reply.api) if wants_json else None
    except ResponseParseError as error:
        if strict:
            raise
        content = reply.content
        problems.append(str(error))
    grounding = reply.grounding
    return AdapterResult(
        content=content,
        parsed=parsed,
        model_version=reply.model_version,
        grounded_effective=grounding.grounded_effective,
        tool_call_count=grounding.tool_call_count,
        web_search_queries=list(grounding.web_search_queries),
        citations=reply.citations,
        attributions=reply.attributions,
        search_entry_point=grounding.search_entry_point,
        usage=reply.usage,
        warnings=[grounding.warning, *problems] if grounding.warning else problems,
        metadata={"two_step": False, **reply_metadata(reply)},
    )
