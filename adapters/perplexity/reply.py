"""A Perplexity reply mapped to the router's :class:`AdapterResult` (the ``ReplyMapper`` that
the adapter, ``extract()`` and streams use).

``content`` is the answer (for JSON answers, the JSON text); ``parsed`` its JSON value when the
request asked for JSON. A reply without answer text, or whose JSON answer does not parse, is a
``ResponseParseError`` (``empty_answer``, ``invalid_json``); with ``strict=False`` the mapper
never raises and says why in ``warnings``.

Usage keeps what Perplexity meters: tokens, and the cost it reports itself
(``usage.cost.total_cost`` as ``Usage.reported_cost``; its ``request_cost`` plus
``search_queries_cost``, the search part, as ``reported_search_cost``). ``metadata`` keeps
``num_search_queries``, ``search_context_size``, the cost breakdown as sent, the reply id, the
finish reason and, for a reasoning model, its ``reasoning`` (the ``<think>`` block, which is
not part of ``content``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.base import AdapterResult
from adapters.json_answer import unholdable_json
from adapters.perplexity.citations import read_perplexity_reply
from adapters.sdk.values import as_dict
from router.errors import ResponseParseError
from router.types import LLMRequest, Usage

__all__ = ["map_perplexity_reply"]

_SHOWN_CHARS = 80
_SEARCH_COSTS = ("request_cost", "search_queries_cost")


def map_perplexity_reply(
    reply: object, request: LLMRequest, *, strict: bool = True
) -> AdapterResult:
    """The :class:`AdapterResult` of one reply to ``request`` (see the module docstring)."""
    body = as_dict(reply)
    extraction = read_perplexity_reply(body)
    problems: list[str] = []
    parsed = None
    try:
        if not extraction.content.strip():
            raise ResponseParseError(
                f"Perplexity: the reply holds no answer text (finish reason "
                f"{_finish_reason(body) or 'unknown'})",
                vendor="perplexity",
                reason="empty_answer",
            )
        if request.wants_json:
            parsed = _json_answer(extraction.content)
    except ResponseParseError as error:
        if strict:
            raise
        problems.append(str(error))
    model = body.get("model")
    return AdapterResult(
        content=extraction.content,
        parsed=parsed,
        model_version=model if isinstance(model, str) else None,
        grounded_effective=extraction.grounded_effective,
        tool_call_count=extraction.tool_call_count,
        citations=extraction.citations,
        attributions=extraction.attributions,
        usage=_usage(body.get("usage")),
        warnings=[*extraction.warnings, *problems],
        metadata=_metadata(body, extraction.sources_seen, extraction.reasoning),
    )


def _json_answer(content: str) -> Any:
    try:
        return json.loads(content)
    except json.JSONDecodeError as exc:
        raise ResponseParseError(
            f"Perplexity: the answer is not valid JSON: {exc.msg} at line {exc.lineno} column "
            f"{exc.colno} (char {exc.pos}); it starts with {content.strip()[:_SHOWN_CHARS]!r}",
            vendor="perplexity",
            reason="invalid_json",
        ) from exc
    except (ValueError, RecursionError) as exc:  # digits past int's limit, nesting past Python's
        raise unholdable_json("Perplexity", exc, vendor="perplexity") from exc


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(usage: Mapping[str, Any], name: str) -> int | None:
    value = usage.get(name)
    return value if type(value) is int and value >= 0 else None


def _money(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        number = float(value)
        return number if number != float("inf") else None
    return None


def _usage(value: object) -> Usage:
    usage = _dict(value)
    cost = _dict(usage.get("cost"))
    searches = [_money(cost.get(name)) for name in _SEARCH_COSTS]
    known = [amount for amount in searches if amount is not None]
    return Usage(
        input_tokens=_count(usage, "prompt_tokens"),
        output_tokens=_count(usage, "completion_tokens"),
        total_tokens=_count(usage, "total_tokens"),
        reasoning_tokens=_count(usage, "reasoning_tokens"),
        reported_cost=_money(cost.get("total_cost")),
        reported_search_cost=sum(known) if known else None,
    )


def _finish_reason(body: Mapping[str, Any]) -> str | None:
    choices = body.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    reason = first.get("finish_reason") if isinstance(first, dict) else None
    return reason if isinstance(reason, str) else None


def _metadata(body: Mapping[str, Any], sources_seen: int, reasoning: str | None) -> dict[str, Any]:
    usage = _dict(body.get("usage"))
    metadata: dict[str, Any] = {
        "response_id": body.get("id") if isinstance(body.get("id"), str) else None,
        "finish_reason": _finish_reason(body),
        "sources_seen": sources_seen,
        "search_results_present": isinstance(body.get("search_results"), list),
    }
    for name in ("num_search_queries", "search_context_size"):
        value = usage.get(name)
        if isinstance(value, int | str) and not isinstance(value, bool):
            metadata[name] = value
    if reasoning is not None:
        metadata["reasoning"] = reasoning
    cost = _dict(usage.get("cost"))
    if cost:
        metadata["cost"] = {
            key: amount
            for key, value in cost.items()
            if isinstance(key, str) and (amount := _money(value)) is not None
        }
    return metadata
