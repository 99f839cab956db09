"""How deep a JSON-like value nests, measured without recursion.

A reply's JSON answer and a caller's ``metadata`` end up inside an ``LLMResponse``, whose JSON
serialiser stops at a fixed depth (pydantic-core's, about 250 levels): a value nested deeper
cannot be written as a batch row or printed. The router measures nesting here, iteratively, so
a value thousands of levels deep is measured as easily as a flat one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["nesting_depth"]


def nesting_depth(value: Any, *, stop_at: int | None = None) -> int:
    """Levels of dicts and lists in ``value`` (a scalar is 0, ``[[1]]`` is 2).

    With ``stop_at``, measuring stops as soon as that depth is passed (the result is then
    ``stop_at + 1``), so a hostile value costs no more than the limit it breaks.
    """
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if stop_at is not None and deepest > stop_at:
            return deepest
        pending.extend((child, depth) for child in children)
    return deepest
