"""Every string inside a value as bytes, for the scans that look for something in all of them.

``marshal.dumps`` writes a value of dicts, lists and tuples in C with every string as its UTF-8
bytes (lone surrogates as their three-byte forms): one search of those bytes stands for a walk
over the strings in Python, several times dearer for the few hundred strings of a response.
Other bytes lie between the strings (type codes, lengths, numbers), so a scan can find what is
not in any string: a hit only means "look closer", string by string.
"""

from __future__ import annotations

import marshal
from typing import Any

__all__ = ["written"]


def written(value: Any) -> bytes | None:
    """``value`` written by marshal, or None when it holds a value marshal has no format for
    (a subclass of ``dict`` or ``str``, any other object) or nests deeper than it goes."""
    try:
        return marshal.dumps(value)
    except ValueError:
        return None
