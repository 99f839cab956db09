"""Reading provider values that come as plain dicts or as ``openai`` SDK models (pure).

SDK models are dumped to the dict they were built from (``exclude_unset``), so a ``Response``
and the JSON body it came from read the same. Nothing here raises on malformed input.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import structlog

from router.logging import grounding_debug_enabled

__all__ = ["as_mapping", "compact_json", "looks_like_url_citation", "read_url_citation"]

_log = structlog.get_logger(__name__)


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
            _log.debug("openai_item_unreadable", provider="openai", error=type(exc).__name__)
        return None
    return dumped if isinstance(dumped, dict) else None


def read_url_citation(
    annotation: object,
) -> tuple[Mapping[str, Any], Mapping[str, Any], str] | None:
    """(the annotation, the mapping holding its fields, its URL) for a URL citation, else None.

    Responses put the fields on the annotation itself; Chat Completions nest them under
    ``url_citation``. Other annotation types (file citations, file paths) are not web sources.
    """
    entry = annotation if type(annotation) is dict else as_mapping(annotation)
    if entry is None:
        return None
    kind = entry.get("type")
    if kind != "url_citation" and kind is not None:
        return None
    nested = entry.get("url_citation")
    fields = entry if nested is None else as_mapping(nested)
    if fields is None:
        return None
    url = fields.get("url")
    return (entry, fields, url) if type(url) is str else None


def looks_like_url_citation(annotation: object) -> bool:
    """Whether an annotation means to be a URL citation (so failing to read it is a skip)."""
    entry = as_mapping(annotation)
    return entry is not None and entry.get("type") in (None, "url_citation")


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
