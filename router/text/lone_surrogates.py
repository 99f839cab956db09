"""Lone surrogates out of provider text, so every response can be written as UTF-8.

A provider's JSON may carry ``\\ud800``-style escapes that decode to lone surrogates, which UTF-8
cannot encode: a response holding one fails ``model_dump_json()``, a batch row and a print. The
router replaces each with U+FFFD, one code point for one, so offsets into the text stay valid.
"""

from __future__ import annotations

import re
from typing import Any

from router.types import Citation

__all__ = ["may_hold_lone_surrogate", "scrub", "scrub_citations", "scrub_value"]

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
# A surrogate as router.text.written writes it (UTF-8, ``surrogatepass``): ED A0..BF, one more.
_WRITTEN_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")
# Deeper than any value the router lets into a response (``max_json_depth`` is at most 200,
# caller metadata at most 32 levels), so every string of a response is reached.
_MAX_DEPTH = 256


def scrub(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (the same object when it has none)."""
    if text.isascii() or not _LONE_SURROGATE.search(text):
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


def may_hold_lone_surrogate(texts: bytes | None) -> bool:
    """False when none of the strings ``texts`` holds (:func:`router.text.written.written`)
    holds a lone surrogate; True also when ``texts`` is None (a value marshal cannot write)."""
    if texts is None:
        return True
    return b"\xed" in texts and _WRITTEN_SURROGATE.search(texts) is not None


def scrub_value(value: Any, depth: int = 0) -> Any:
    """``scrub`` applied to every string inside dicts and lists (keys too); other values as-is."""
    if isinstance(value, str):
        return scrub(value)
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, dict):
        return {scrub_value(k, depth + 1): scrub_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(item, depth + 1) for item in value]
    return value


def scrub_citations(citations: list[Citation]) -> list[Citation]:
    """The citations with their span texts scrubbed (copies only of those that change).

    Every other text field of a citation was cleaned when it was built (``make_citation``).
    """
    scrubbed: list[Citation] = []
    for citation in citations:
        spans = citation["spans"]
        texts = [scrub(span["text"]) for span in spans]
        if all(new is span["text"] for new, span in zip(texts, spans, strict=True)):
            scrubbed.append(citation)
            continue
        copy = citation.copy()
        copy["spans"] = [{**span, "text": text} for span, text in zip(spans, texts, strict=True)]
        scrubbed.append(copy)
    return scrubbed
