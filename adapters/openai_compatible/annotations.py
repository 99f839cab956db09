"""Reading OpenAI values that come as plain dicts or as ``openai`` SDK models (pure).

``as_mapping`` and ``compact_json`` are the shared readers of :mod:`adapters.sdk.values`, kept
importable here. Nothing here raises on malformed input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.sdk.values import as_mapping, compact_json

__all__ = ["as_mapping", "compact_json", "looks_like_url_citation", "read_url_citation"]


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
