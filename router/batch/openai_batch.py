"""Lines in OpenAI's Batch API format (``custom_id``/``method``/``url``/``body``) as batch lines.

A pipeline moving from OpenAI's Batch API keeps its file: :func:`convert_line` turns each line
into a grounded request to OpenAI with the body's model and messages (``/v1/chat/completions``
``messages``, or ``/v1/responses`` ``input`` as a string or a list of turns), ``custom_id`` as
the request_id, and the body's temperature and output-token limit. OpenAI's Batch API does not
run web search; that is what routing the file here adds, so every converted line is grounded.
A line that is not in that format is returned unchanged, to become its own error row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["OPENAI_BATCH_KEYS", "convert_line", "looks_like_openai_batch"]

OPENAI_BATCH_KEYS = frozenset({"custom_id", "method", "url", "body"})
"""The keys of a line of OpenAI's Batch API input file."""

_ROLES = {"developer": "system"}  # OpenAI's newer name for the system turn

_OUTPUT_LIMITS = ("max_output_tokens", "max_completion_tokens", "max_tokens")


def looks_like_openai_batch(data: object) -> bool:
    """Whether a line's JSON has the keys of OpenAI's Batch API format (at least three)."""
    return isinstance(data, Mapping) and len(OPENAI_BATCH_KEYS & data.keys()) >= 3


def convert_line(text: str) -> str:
    """The batch line for one OpenAI Batch API line, or ``text`` itself when it is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not looks_like_openai_batch(data) or not isinstance(data.get("body"), Mapping):
        return text
    body: Mapping[str, Any] = data["body"]
    request: dict[str, Any] = {
        "vendor": "openai",
        "model": body.get("model"),
        "messages": _messages(body),
        "grounded": True,
    }
    if isinstance(data.get("custom_id"), str):
        request["request_id"] = data["custom_id"]
    if body.get("temperature") is not None:
        request["temperature"] = body["temperature"]
    limit = next((body[key] for key in _OUTPUT_LIMITS if body.get(key) is not None), None)
    if limit is not None:
        request["max_output_tokens"] = limit
    return json.dumps(request)


def _messages(body: Mapping[str, Any]) -> Any:
    """Chat Completions ``messages``, or Responses ``input`` (a string is one user turn).

    Turns are kept as given, less the keys a router message does not have; a turn the router
    cannot take then fails validation on its own line, naming the field.
    """
    turns = body.get("messages", body.get("input"))
    if isinstance(turns, str):
        return [{"role": "user", "content": turns}]
    if not isinstance(turns, list):
        return turns
    return [
        {
            "role": _ROLES.get(str(turn.get("role")), turn.get("role")),
            "content": turn.get("content"),
        }
        if isinstance(turn, Mapping)
        else turn
        for turn in turns
    ]
