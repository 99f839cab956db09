"""A candidate's answer text, and Gemini's segment offsets as character spans of that text.

The answer (``content``) is the candidate's text parts concatenated; thought parts are not
part of the answer. Gemini's ``segment`` offsets are UTF-8 byte offsets, ``endIndex``
exclusive (sdk-notes 2.2; verified on the recorded bodies with non-ASCII text, where byte
slicing reproduces ``segment.text`` and character slicing does not):

- with ``partIndex``, into the text of that part of ``content.parts``;
- without it, into the concatenated answer (proto3 leaves out a zero ``partIndex``, and the
  recorded bodies, some with non-text parts before the text, only line up that way);
- a missing ``startIndex`` is 0 (proto3 leaves out zero values too).

When the text at the converted offsets is not ``segment.text`` but that text occurs in the
part, the occurrence nearest the offsets wins: offsets that drifted (a recording that rewrote
characters, a provider off by a few bytes) still point at the claim they support. A span is
always ``content[start:end]``; a segment that yields no characters gives no span.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adapters.vertex.body import index, items, mapping
from router.logging import get_logger, grounding_debug_enabled
from router.types import Span

__all__ = ["TextLayout", "candidate_layout", "segment_span"]

_log = get_logger(__name__)


_NOT_ENCODED = b"\0not encoded"


@dataclass(slots=True)
class TextLayout:
    """The answer text of one candidate and where each text part sits in it."""

    content: str
    parts: dict[int, tuple[int, str]]  # part index -> (character offset in content, text)
    _encoded: dict[tuple[int, int], bytes | None] = field(default_factory=dict)

    def scope(self, part_index: int | None) -> tuple[int, str] | None:
        """(offset in content, text) that a segment's offsets count into, or None."""
        if part_index is None:
            return 0, self.content
        found = self.parts.get(part_index)
        if found is None and part_index == 0:
            return 0, self.content  # an explicit zero reads like a missing partIndex
        return found

    def encoded(self, offset: int, scope_text: str) -> bytes | None:
        """The UTF-8 bytes of a scope, None when it is ASCII (computed once per scope)."""
        key = (offset, len(scope_text))
        found = self._encoded.get(key, _NOT_ENCODED)
        if found is _NOT_ENCODED:
            # surrogatepass: a JSON body may carry lone surrogates; they must not raise here.
            found = self._encoded[key] = (
                None if scope_text.isascii() else scope_text.encode("utf-8", "surrogatepass")
            )
        return found


def candidate_layout(candidate: object) -> TextLayout:
    """The answer text of a candidate: its non-thought text parts, concatenated."""
    pieces: list[str] = []
    parts: dict[int, tuple[int, str]] = {}
    offset = 0
    for position, part in enumerate(items(mapping(mapping(candidate).get("content")).get("parts"))):
        if not isinstance(part, dict) or part.get("thought") is True:
            continue
        part_text = part.get("text")
        if not isinstance(part_text, str):
            continue
        parts[position] = (offset, part_text)
        pieces.append(part_text)
        offset += len(part_text)
    return TextLayout(content="".join(pieces), parts=parts)


def _nearest(haystack: str, needle: str, near: int) -> int | None:
    """The start of the occurrence of ``needle`` in ``haystack`` nearest to ``near``."""
    best: int | None = None
    found = haystack.find(needle)
    while found != -1:
        if best is None or abs(found - near) < abs(best - near):
            best = found
        if found > near:
            break
        found = haystack.find(needle, found + 1)
    return best


def segment_span(layout: TextLayout, segment: object) -> Span | None:
    """The span of ``layout.content`` a grounding ``segment`` covers, or None."""
    seg = segment if type(segment) is dict else mapping(segment)
    if not seg:
        return None
    part_index = seg.get("partIndex")
    if part_index is None:  # nearly every segment: offsets into the whole answer
        scope: tuple[int, str] | None = (0, layout.content)
    else:
        scope = layout.scope(index(part_index))
    raw_start = seg.get("startIndex") or 0
    # The common case, a plain non-negative int, read without a call (once per support).
    start_byte = raw_start if type(raw_start) is int and raw_start >= 0 else index(raw_start)
    raw_end = seg.get("endIndex")
    end_byte = raw_end if type(raw_end) is int and raw_end >= 0 else index(raw_end)
    claimed = seg.get("text")
    if scope is None or start_byte is None:
        return _skip("no_scope" if scope is None else "bad_start_index")
    offset, scope_text = scope
    encoded = layout.encoded(offset, scope_text)
    # _characters, inlined: this runs once per support of every reply.
    if encoded is None:  # ASCII: bytes and characters coincide
        start = min(start_byte, len(scope_text))
    else:
        start = len(encoded[:start_byte].decode("utf-8", "ignore"))
    if end_byte is not None:
        if encoded is None:
            end = min(end_byte, len(scope_text))
        else:
            end = len(encoded[:end_byte].decode("utf-8", "ignore"))
    elif isinstance(claimed, str) and claimed:
        end = start + len(claimed)
    else:
        return _skip("no_end_index")
    piece = scope_text[start:end]
    if isinstance(claimed, str) and claimed and piece != claimed:
        found = _nearest(scope_text, claimed, start)
        if found is not None:
            if grounding_debug_enabled():
                _log.debug("vertex_span_realigned", shift=found - start)
            start, end = found, found + len(claimed)
            piece = claimed
    if not piece:  # start at or past the end (which stops at the end of the scope)
        return _skip("empty")
    return {"start": offset + start, "end": offset + min(end, len(scope_text)), "text": piece}


def _skip(reason: str) -> Span | None:
    """No span (with a debug event saying why when DEBUG_GROUNDING is on)."""
    if grounding_debug_enabled():
        _log.debug("vertex_span_skipped", reason=reason)
    return None
