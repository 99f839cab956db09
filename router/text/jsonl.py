"""JSON Lines read one line at a time, where any line may be hostile.

A batch reads JSONL at both ends: its input, and its own output file, which ``--resume`` and the
ALS report read back. Any line of either can be anything at all: not JSON, nested thousands of
levels deep (``json.loads`` raises ``RecursionError``), a number of thousands of digits (a plain
``ValueError``), gigabytes long, not UTF-8. Whoever reads a line needs a verdict on that line and
nothing more: :func:`read_lines` yields every line with its number and byte offsets, cutting
lines longer than a bound instead of holding them, and :func:`loads` parses one line and fails
with exactly one exception type, :class:`UnreadableLineError`, whatever was wrong with it.

This module imports nothing from the rest of the project, so the batch runner and ALS can share
it without either reaching into the other.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["Line", "UnreadableLineError", "loads", "read_lines"]

# How much of a cut line is read per call while skipping to its end.
_SKIP_CHUNK = 1 << 20
# A message quoting the parser is cut to this length (the parser may quote the line).
_PROBLEM_CHARS = 200


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a JSONL file, without its newline."""

    number: int
    """1-based, counting every line, blank ones included."""
    data: bytes
    """The line's bytes; for a line longer than the bound it was read with, the first ones."""
    size: int
    """The line's full length in bytes (larger than ``len(data)`` when the line was cut)."""
    end: int
    """The byte offset just past the line and its newline."""
    complete: bool
    """Whether the line ends with a newline (a file still being written may end mid-line)."""

    @property
    def cut(self) -> bool:
        """Whether the line was longer than the bound: ``data`` holds only its beginning."""
        return self.size > len(self.data)

    @property
    def blank(self) -> bool:
        """Whether the line holds nothing but whitespace."""
        return not self.cut and not self.data.strip()


class UnreadableLineError(ValueError):
    """A line that holds no JSON value; the message says why, for people."""


def read_lines(handle: IO[bytes], *, max_bytes: int | None = None) -> Iterator[Line]:
    """Yield every line of a binary file, in order, holding at most ``max_bytes`` of any one.

    A line longer than ``max_bytes`` is yielded once, cut to its first ``max_bytes`` bytes, and
    the rest of it is skipped in bounded chunks: one line of any length costs bounded memory.
    """
    number = 0
    offset = 0
    while True:
        chunk = handle.readline() if max_bytes is None else handle.readline(max_bytes + 1)
        if not chunk:
            return
        number += 1
        complete = chunk.endswith(b"\n")
        data = chunk[:-1] if complete else chunk
        size = len(data)
        if max_bytes is not None and size > max_bytes:
            data = data[:max_bytes]
            size, complete = _skip_rest(handle, size)
        offset += size + complete
        yield Line(number=number, data=data, size=size, end=offset, complete=complete)


def _skip_rest(handle: IO[bytes], size: int) -> tuple[int, bool]:
    """Read past the end of a cut line: its full size, and whether a newline ended it."""
    while True:
        rest = handle.readline(_SKIP_CHUNK)
        if not rest:
            return size, False
        if rest.endswith(b"\n"):
            return size + len(rest) - 1, True
        size += len(rest)


def loads(text: str | bytes) -> Any:
    """The JSON value of one line; :class:`UnreadableLineError` for anything else whatsoever.

    ``json.loads`` fails in more ways than ``JSONDecodeError``: ``RecursionError`` for deep
    nesting, ``ValueError`` for an integer past Python's digit limit or bytes that are not
    UTF-8, ``MemoryError``. A reader that catches only some of them stops at the others.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        problem = "not readable JSON (nested too deeply)"
    except MemoryError:
        problem = "not readable JSON (too large to hold in memory)"
    except Exception as exc:  # any other failure of the parser is a verdict on the line
        problem = f"not readable JSON ({type(exc).__name__}: {exc})"
    raise UnreadableLineError(_bounded(problem)) from None


def _bounded(problem: str) -> str:
    if len(problem) <= _PROBLEM_CHARS:
        return problem
    return problem[: _PROBLEM_CHARS - 1] + "…"
