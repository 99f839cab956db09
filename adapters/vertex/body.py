"""One spelling for Vertex / Gemini replies: the REST body, with camelCase keys.

The extractors accept an SDK ``GenerateContentResponse``, a REST body (camelCase, as the API
sends it) or a snake_case dict (an SDK or proto dump). :func:`as_rest_body` turns any of them
into a plain dict whose keys are all camelCase, once, so every lookup after it is written once.
A camelCase body is returned as it is, without a copy. Small typed readers (``mapping``,
``items``, ``text``, ``index``) read a value of the wrong type as absent; nothing here raises.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from router.logging import get_logger

__all__ = ["as_rest_body", "index", "items", "mapping", "reply_body", "text"]

# The fields of ``GenerateContentResponse`` the mappers read: dumping only these keeps the SDK
# path cheap and leaves out transport details such as ``sdk_http_response``.
_SDK_FIELDS = frozenset(
    {"candidates", "usage_metadata", "model_version", "response_id", "prompt_feedback"}
)


_CACHEABLE_KEY_CHARS = 256
_log = get_logger(__name__)


@lru_cache(maxsize=4096)
def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def _camel_key(key: object) -> str:
    if not isinstance(key, str):
        return str(key)
    # Long keys skip the cache: an entry keeps its key alive, and a hostile key may be huge.
    return _camel(key) if len(key) <= _CACHEABLE_KEY_CHARS else _camel.__wrapped__(key)


def _snake_keys(node: object) -> bool:
    if type(node) is not dict:
        return isinstance(node, Mapping)
    try:
        # One C-level pass over the keys (a JSON object's keys are all strings); a key that
        # is not a string makes join raise, and counts as one to convert, as it did before.
        return "_" in "".join(node)
    except TypeError:
        return True


def _needs_camel(body: dict[Any, Any]) -> bool:
    """Whether the body is spelled in snake_case (or holds mappings that are not dicts).

    Decided from the keys of the levels every reply has (the body, its candidates, their
    content and grounding metadata): a walk over the whole body would cost as much as the
    extraction itself, and replies come in one spelling (REST camelCase, SDK or proto dumps
    snake_case). Keys inside provider values (``toolResponse.response.search_suggestions``)
    do not count.
    """
    if _snake_keys(body):
        return True
    candidates = body.get("candidates")
    if not isinstance(candidates, list):
        return False
    for candidate in candidates:
        if _snake_keys(candidate):
            return True
        if type(candidate) is dict:
            for key in ("content", "groundingMetadata", "citationMetadata"):
                value = candidate.get(key)
                if value is not None and _snake_keys(value):
                    return True
    return False


def _to_camel(value: object) -> object:
    if isinstance(value, Mapping):
        return {_camel_key(key): _to_camel(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_to_camel(item) for item in value]
    return value


def reply_body(response: object) -> dict[str, Any]:
    """The REST body of an SDK reply: its raw JSON when the SDK handed it back, else the model.

    With ``should_return_http_response`` the SDK returns the HTTP body unparsed; decoding it
    here may raise ``json.JSONDecodeError``, which the caller's error translation classifies.
    """
    http = getattr(response, "sdk_http_response", None)
    raw = getattr(http, "body", None)
    if isinstance(raw, str | bytes):
        decoded = json.loads(raw) if raw else {}
        return as_rest_body(decoded) if isinstance(decoded, dict) else {}
    return as_rest_body(response)


def as_rest_body(response: object) -> dict[str, Any]:
    """The reply as a dict in the REST spelling; {} for anything that is not a reply.

    Text (a stored JSON or SSE reply) is not read here: it gets {} and a warning event that
    names ``router.extract``, the entry that reads stored replies in any form.
    """
    if isinstance(response, Mapping):
        if isinstance(response, dict) and not _needs_camel(response):
            return response
        converted = _to_camel(response)
        return converted if isinstance(converted, dict) else {}
    if isinstance(response, str | bytes | bytearray):
        _log.warning(
            "reply_is_text",
            provider="vertex",
            characters=len(response),
            hint="read stored JSON or SSE replies with router.extract('vertex', text)",
        )
        return {}
    model_dump = getattr(response, "model_dump", None)
    if not callable(model_dump):
        return {}
    try:
        dumped = model_dump(mode="json", by_alias=True, exclude_none=True, include=_SDK_FIELDS)
    except Exception:  # a foreign object with a model_dump of another signature
        return {}
    return as_rest_body(dumped) if isinstance(dumped, Mapping) else {}


def mapping(value: object) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty one."""
    return value if isinstance(value, dict) else {}


def items(value: object) -> list[Any]:
    """``value`` when it is a list; a lone dict as a list of one; else an empty list."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [value]
    return []


def text(value: object) -> str | None:
    """``value`` when it is a non-blank string, else None."""
    return value if isinstance(value, str) and value and not value.isspace() else None


def index(value: object) -> int | None:
    """``value`` when it is a non-negative int (bools are not), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
