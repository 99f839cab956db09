"""Text fit for a citation's title and snippet: controls out, whitespace collapsed, bounded."""

from __future__ import annotations

import re

__all__ = [
    "CITED_TEXT_LIMIT",
    "ELLIPSIS",
    "SNIPPET_LIMIT",
    "TITLE_LIMIT",
    "sanitize_text",
    "title_from_text",
]

SNIPPET_LIMIT = 200
# The passage a provider quotes for a citation (Anthropic's cited_text runs to ~150 characters).
CITED_TEXT_LIMIT = 500
# Titles are not cut by the contract; this only keeps a runaway provider value bounded.
TITLE_LIMIT = 500
ELLIPSIS = "…"

# C0 and C1 controls and lone surrogates (which cannot be written as UTF-8); whitespace controls
# were turned into spaces before.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# The heads of a long text sanitize_text cleans first: limit + limit/4 + 16, then 2 * limit.
_HEAD_FACTOR = 2
_MARGIN_DIVISOR = 4
_MARGIN = 16


def sanitize_text(
    text: object, *, limit: int | None = None, ellipsis_after: bool = False
) -> str | None:
    """Text fit for a citation field: controls out, whitespace runs as one space, trimmed.

    With ``limit``, a longer text is cut to at most ``limit`` characters ending in "…"; with
    ``ellipsis_after`` too, it keeps its first ``limit`` characters and "…" follows them (the
    snippet rule of the spec, ``slice(0, 200) + "…"``). None for anything that is not a string
    or leaves nothing.
    """
    if not isinstance(text, str):
        return None
    if (
        type(text) is str
        and text.isprintable()
        and (limit is None or len(text) <= limit)
        and text
        and text[0] != " "
        and text[-1] != " "
        and "  " not in text
    ):
        # Already clean, the common case for titles: a printable text has no whitespace but
        # " " (every other whitespace character is unprintable), so with no leading, trailing
        # or doubled space, the cleaning below would give it back unchanged.
        return text
    if limit is not None:
        # A page of text for a 200-character snippet: clean only a head of it when that leaves
        # more than `limit` characters (the cleaned head is a prefix of the cleaned text). A
        # little over `limit` nearly always does; twice `limit` covers whitespace-heavy text.
        for head_size in (limit + limit // _MARGIN_DIVISOR + _MARGIN, _HEAD_FACTOR * limit):
            if len(text) <= head_size:
                break
            head = sanitize_text(text[:head_size])
            if head is not None and len(head) > limit:
                return _cut(head, limit, ellipsis_after)
    cleaned = " ".join(text.split())  # str.split() and re's \s agree on what whitespace is
    if not cleaned.isprintable():  # every control character is unprintable: skip the scan
        cleaned = _CONTROL.sub("", cleaned).strip()
    if not cleaned:
        return None
    if limit is not None and len(cleaned) > limit:
        return _cut(cleaned, limit, ellipsis_after)
    return cleaned


def _cut(cleaned: str, limit: int, ellipsis_after: bool) -> str:
    if ellipsis_after:
        return cleaned[:limit] + ELLIPSIS
    return cleaned[: max(limit - 1, 0)].rstrip() + ELLIPSIS


# A first line that reads as a title: short, a few words, not a sentence or clause that runs on.
_TEXT_TITLE_MAX_CHARS = 150
_TEXT_TITLE_MAX_WORDS = 20
_CLAUSE_ENDS = (".", ",", ";", ":")


def title_from_text(text: object) -> str | None:
    """The first line of a search result's text when it reads as a title, else None.

    ``"Ruby 3.4.0 Released\nThe Ruby team announced ..."`` gives ``"Ruby 3.4.0 Released"``. The
    first line must be followed by more text, hold a letter and no URL, stay within 150
    characters and 20 words and not end like a sentence or clause (".", ",", ";", ":");
    markdown heading marks are dropped. A one-line text is the snippet itself, never a title.
    """
    if not isinstance(text, str):
        return None
    first, newline, rest = text.strip().partition("\n")
    if not newline or not rest.strip():
        return None
    line = sanitize_text(first.lstrip("#"))
    if (
        line is None
        or len(line) > _TEXT_TITLE_MAX_CHARS
        or len(line.split()) > _TEXT_TITLE_MAX_WORDS
        or line.endswith(_CLAUSE_ENDS)
        or "://" in line
        or not any(char.isalpha() for char in line)
    ):
        return None
    return line
