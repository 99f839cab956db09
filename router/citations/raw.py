"""The ``raw`` field of a citation: the provider's object as a bounded, JSON-able copy.

``raw`` keeps the provider object for forensics, as it came, with three exceptions that keep a
hostile or broken reply from blowing up every place a response goes (memory, batch rows, logs):

- a string longer than ``RAW_TEXT_LIMIT`` characters is cut, ending in
  ``"… [N characters cut]"`` (a 1 MB title stays a 1 MB title nowhere);
- a list or object with more than ``RAW_ITEMS_LIMIT`` entries keeps its first ones, and a last
  entry says how many were cut (``"… [N items cut]"``, or the key ``"…"`` in an object);
- what JSON cannot hold is made JSON-able: SDK models dumped, bytes as base64, NaN and
  infinities as None, lone surrogates (which UTF-8 cannot encode) as U+FFFD, anything else
  stringified, and nesting deeper than 32 levels as its ``repr``.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from itertools import islice
from typing import Any

from router.text.lone_surrogates import scrub

__all__ = ["RAW_ITEMS_LIMIT", "RAW_TEXT_LIMIT", "jsonable_raw", "raw_text"]

RAW_TEXT_LIMIT = 4_096
RAW_ITEMS_LIMIT = 100
_MAX_DEPTH = 32
_PLAIN = frozenset({int, bool, type(None)})


def raw_text(text: str) -> str:
    """``text`` cut to ``RAW_TEXT_LIMIT`` characters (with a marker) and writable as UTF-8."""
    if len(text) > RAW_TEXT_LIMIT:
        text = f"{text[:RAW_TEXT_LIMIT]}… [{len(text) - RAW_TEXT_LIMIT} characters cut]"
    return scrub(text)


def jsonable_raw(value: Any, depth: int = 0) -> Any:
    """A bounded, JSON-able deep copy of a provider value, as the module docstring says."""
    if type(value) is dict and depth < _MAX_DEPTH and len(value) <= RAW_ITEMS_LIMIT:
        # The common case, a parsed JSON object: copy it, then replace what needs it.
        copied = value.copy()
        for key, item in value.items():
            if type(key) is not str or len(key) > RAW_TEXT_LIMIT or not key.isascii():
                return _mapping(value, depth)
            kind = type(item)
            if kind is str:
                if len(item) > RAW_TEXT_LIMIT or not item.isascii():
                    copied[key] = raw_text(item)
            elif kind not in _PLAIN:
                copied[key] = jsonable_raw(item, depth + 1)
        return copied
    if isinstance(value, str):
        return raw_text(value)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth >= _MAX_DEPTH:
        return raw_text(repr(value))
    if isinstance(value, Mapping):
        return _mapping(value, depth)
    if isinstance(value, list | tuple | set | frozenset):
        copied_items = [jsonable_raw(item, depth + 1) for item in islice(value, RAW_ITEMS_LIMIT)]
        if len(value) > RAW_ITEMS_LIMIT:
            copied_items.append(f"… [{len(value) - RAW_ITEMS_LIMIT} items cut]")
        return copied_items
    if isinstance(value, bytes | bytearray):
        return raw_text(base64.b64encode(bytes(value)).decode("ascii"))
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        return jsonable_raw(model_dump(mode="json", exclude_none=True), depth + 1)
    return raw_text(str(value))


def _mapping(value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    copied = {
        raw_text(str(key)): jsonable_raw(item, depth + 1)
        for key, item in islice(value.items(), RAW_ITEMS_LIMIT)
    }
    if len(value) > RAW_ITEMS_LIMIT:
        copied["…"] = f"[{len(value) - RAW_ITEMS_LIMIT} items cut]"
    return copied
