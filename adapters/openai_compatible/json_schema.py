"""A caller's JSON schema as OpenAI-compatible APIs take it: its name and whether strict fits.

OpenAI's Responses ``text.format`` and the Chat Completions ``response_format`` of OpenRouter
both carry a ``json_schema`` with a ``name`` (``[A-Za-z0-9_-]{1,64}``) and a ``strict`` flag,
which Structured Outputs accepts only for a schema whose objects are all closed (pure).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["DEFAULT_SCHEMA_NAME", "is_strict_compatible", "schema_name"]

DEFAULT_SCHEMA_NAME = "response"

# The API's rule for text.format.name.
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_NAME_LIMIT = 64
# Keywords whose value is one subschema, a list of them, or a mapping of names to them.
_SUBSCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")


def schema_name(schema: Mapping[str, Any]) -> str:
    """The schema's ``title`` made fit for ``text.format.name`` (``[A-Za-z0-9_-]{1,64}``)."""
    title = schema.get("title")
    if isinstance(title, str):
        name = _NAME_CHARS.sub("_", title.strip()).strip("_")[:_NAME_LIMIT]
        if name:
            return name
    return DEFAULT_SCHEMA_NAME


def is_strict_compatible(schema: Mapping[str, Any]) -> bool:
    """Whether Structured Outputs' strict mode accepts ``schema`` as it is.

    Strict mode needs every object to close ``additionalProperties`` and to require all of its
    properties; a schema that leaves one open is sent with ``strict: false`` instead of being
    rewritten (rewriting would change what the caller's schema means).
    """
    return all(_closed_object(node) for node in _schema_nodes(schema))


def _is_object_schema(node: Mapping[str, Any]) -> bool:
    declared = node.get("type")
    if declared == "object" or (isinstance(declared, list) and "object" in declared):
        return True
    return declared is None and isinstance(node.get("properties"), Mapping)


def _closed_object(node: Mapping[str, Any]) -> bool:
    if not _is_object_schema(node):
        return True
    if node.get("additionalProperties") is not False:
        return False
    properties = node.get("properties")
    names = set(properties) if isinstance(properties, Mapping) else set()
    required = node.get("required")
    if not isinstance(required, list):
        return not names
    return names <= {r for r in required if isinstance(r, str)}


def _schema_nodes(node: Any, depth: int = 0) -> Iterator[Mapping[str, Any]]:
    """Every (sub)schema of ``node``, following only the keywords that hold subschemas."""
    if not isinstance(node, Mapping) or depth > 64:
        return
    yield node
    for key in _SUBSCHEMA:
        value = node.get(key)
        if isinstance(value, list):  # draft-04 tuple form of "items"
            for item in value:
                yield from _schema_nodes(item, depth + 1)
        else:
            yield from _schema_nodes(value, depth + 1)
    for key in _SUBSCHEMA_LISTS:
        value = node.get(key)
        if isinstance(value, list):
            for item in value:
                yield from _schema_nodes(item, depth + 1)
    for key in _SUBSCHEMA_MAPS:
        value = node.get(key)
        if isinstance(value, Mapping):
            for item in value.values():
                yield from _schema_nodes(item, depth + 1)
