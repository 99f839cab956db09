"""Reading provider values that come as plain dicts or as SDK models (pure, never raises).

Every provider SDK here builds its models with pydantic; a model is dumped to the dict it was
built from (``exclude_unset``), so an SDK response and the JSON body it came from read the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from router.logging import get_logger, grounding_debug_enabled

__all__ = ["as_dict", "as_mapping", "compact_json"]

_log = get_logger(__name__)


def as_mapping(value: object) -> Mapping[str, Any] | None:
    """A provider value as a mapping: dicts as they are, SDK models as the dict they hold."""
    if type(value) is dict or isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return None
    try:
        dumped = dump(mode="json", exclude_unset=True, warnings=False)
    except Exception as exc:  # a broken SDK object is skipped, never raised
        if grounding_debug_enabled():
            _log.debug("reply_item_unreadable", error=type(exc).__name__)
        return None
    return dumped if isinstance(dumped, dict) else None


def as_dict(value: object) -> dict[str, Any]:
    """A provider value as a plain dict (see :func:`as_mapping`); empty where it holds none."""
    found = as_mapping(value)
    if found is None:
        return {}
    return found if type(found) is dict else dict(found)


def compact_json(item: object, limit: int) -> str:
    """``item`` as compact JSON, keys sorted (an SDK object reads as its dict), cut to ``limit``."""
    try:
        text = json.dumps(
            item, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=repr
        )
    except (TypeError, ValueError):
        text = repr(item)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
