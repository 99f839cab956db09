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
from collections.abc import Callable, Collection, Mapping
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
        return _json_object(value, depth)  # the common case, a parsed JSON object
    if isinstance(value, _SCALARS):
        return _scalar(value)
    if depth >= _MAX_DEPTH:
        return raw_text(repr(value))
    for kinds, convert in _CONVERTERS:
        if isinstance(value, kinds):
            return convert(value, depth)
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        return jsonable_raw(model_dump(mode="json", exclude_none=True), depth + 1)
    return raw_text(str(value))


def _json_object(value: dict[Any, Any], depth: int) -> dict[Any, Any]:
    """Copy a small dict, then replace what needs it; any odd key sends it to :func:`_mapping`."""
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


def _scalar(value: str | float | None) -> str | float | None:
    """Text cut and scrubbed, a float that JSON cannot hold as None, the rest as it is."""
    if isinstance(value, str):
        return raw_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _mapping(value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    copied = {
        raw_text(str(key)): jsonable_raw(item, depth + 1)
        for key, item in islice(value.items(), RAW_ITEMS_LIMIT)
    }
    if len(value) > RAW_ITEMS_LIMIT:
        copied["…"] = f"[{len(value) - RAW_ITEMS_LIMIT} items cut]"
    return copied


def _items(value: Collection[Any], depth: int) -> list[Any]:
    copied = [jsonable_raw(item, depth + 1) for item in islice(value, RAW_ITEMS_LIMIT)]
    if len(value) > RAW_ITEMS_LIMIT:
        copied.append(f"… [{len(value) - RAW_ITEMS_LIMIT} items cut]")
    return copied


def _base64(value: bytes | bytearray, _depth: int) -> str:
    return raw_text(base64.b64encode(bytes(value)).decode("ascii"))


# What JSON holds as it is (bar long text and non-finite floats).
_SCALARS = (str, bool, int, float, type(None))
# The containers and bytes, in the order they are tried: the first kind that matches converts.
_CONVERTERS: tuple[tuple[type | tuple[type, ...], Callable[[Any, int], Any]], ...] = (
    (Mapping, _mapping),
    ((list, tuple, set, frozenset), _items),
    ((bytes, bytearray), _base64),
)
