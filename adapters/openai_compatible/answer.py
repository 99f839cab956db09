"""The answer text of an OpenAI reply, and annotation offsets mapped into it (pure).

``content`` is the concatenation of the answer's text parts with the private-use citation tokens
removed. Those tokens (``\\ue200cite\\ue202turn0search0\\ue201``: U+E200 opens, U+E202 separates,
U+E201 closes) are the model's internal citation markers; they leak into JSON answers, where no
``url_citation`` annotation replaces them. The spaces or tabs right before a token go with it, so
``"Paris. \\ue200cite…\\ue201"`` becomes ``"Paris."`` rather than keeping a dangling space
inside a JSON string. A token cut off at the end of the text, and a stray marker character, are
removed too.

Annotation offsets (``start_index`` / ``end_index``) are Python ``str`` indices into the
``text`` of their own part (provider-quirks: code points, not UTF-8 bytes). :meth:`AnswerText.span`
maps them into ``content``: the part's offset in ``content``, minus the token characters removed
before them; an offset inside a removed token moves to where the token was.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from router.types import Span

__all__ = ["AnswerText", "content_offset", "strip_citation_tokens"]

_CITATION_TOKEN = re.compile(r"[ \t]*\ue200[^\ue200\ue201]{0,256}(?:\ue201|\Z)|[\ue200-\ue202]")


def strip_citation_tokens(text: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``text`` without citation tokens, and the ``[start, end)`` ranges of ``text`` removed."""
    if "\ue200" not in text and "\ue201" not in text and "\ue202" not in text:
        return text, ()
    removed = tuple(match.span() for match in _CITATION_TOKEN.finditer(text))
    return _CITATION_TOKEN.sub("", text), removed


class _Part(NamedTuple):
    base: int
    """Where the part's cleaned text starts in ``content``."""
    length: int
    """Length of the part's text as the provider sent it (the offsets' coordinate space)."""
    removed: tuple[tuple[int, int], ...]


class AnswerText:
    """The answer assembled from its text parts, in order; offsets map from part to content."""

    __slots__ = ("_parts", "content", "tokens_removed")

    def __init__(self) -> None:
        self._parts: list[_Part] = []
        self.content = ""
        """The answer text so far, citation tokens removed."""
        self.tokens_removed = 0

    def add(self, text: str) -> int:
        """Append one text part; returns its index for :meth:`span`."""
        clean, removed = strip_citation_tokens(text)
        self._parts.append(_Part(len(self.content), len(text), removed))
        self.content += clean
        if removed:
            self.tokens_removed += sum(1 for start, end in removed if "\ue200" in text[start:end])
        return len(self._parts) - 1

    def span(self, part: int, start: object, end: object) -> Span | None:
        """The ``content`` span of offsets ``[start, end)`` of part ``part``, or None.

        None when the offsets are not integers, fall outside the part, or cover nothing once
        mapped (an annotation on a removed token, or OpenRouter's ``0, 0``).
        """
        if type(start) is not int or type(end) is not int:
            return None
        where = self._parts[part]
        if not 0 <= start < end <= where.length:
            return None
        if where.removed:
            first, last = _to_content(where, start), _to_content(where, end)
            if first >= last:
                return None
        else:
            first, last = where.base + start, where.base + end
        return {"start": first, "end": last, "text": self.content[first:last]}


def _to_content(part: _Part, offset: int) -> int:
    return part.base + content_offset(part.removed, offset)


def content_offset(removed: tuple[tuple[int, int], ...], offset: int) -> int:
    """Where ``offset`` of a part's text lands once the ``removed`` ranges are taken out.

    An offset inside a removed range moves to where the range was.
    """
    shift = 0
    for start, end in removed:
        if offset <= start:
            break
        if offset < end:
            return start - shift
        shift += end - start
    return offset - shift
