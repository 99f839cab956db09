"""The answer split into claims: markdown blocks first, then sentences by ``sentencex``.

A segmenter alone reads markdown as prose: it glues a list item to the next one, splits inside
a code span at ``. `` and may cut a link marker ``([site](url))`` at the dots of its URL. So:

1. Fenced code blocks are claims of their own, kept whole (a sentence rule never cuts code).
2. The rest is cut into blocks at blank lines, headings and list items; a heading or list
   marker is not part of its claim's text.
3. Before a block goes to the segmenter, inline code spans and bare URLs are masked with
   letters, and citation markers (``([site](url))``, ``[3]``) with spaces, each of the same
   length: offsets stay put, nothing inside them ends a sentence, and a marker right after a
   full stop does not hide the stop ("city.[1][2] About" is two sentences).
4. A citation marker belongs to the sentence it follows: markers that open a sentence are
   moved to the end of the one before. Sentences are trimmed of surrounding whitespace; blank
   ones are dropped.

``sentencex`` offsets count characters (code points), as ``content`` does; they are checked
anyway, and a sentence whose offsets do not match its text is located by search instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Segment", "segment_claims"]


class Segment(NamedTuple):
    """A claim's character range ``[start, end)`` in the answer and its text."""

    start: int
    end: int
    text: str


_FENCE = re.compile(
    r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S
)
# A block marker at the start of a line: heading, list item, quote.
_MARKER = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?)+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Citation markers: a markdown link (in an optional parenthesised wrapper) or a numeric [3].
_MARKER_TEXT = r"\(?\[[^\]\n]*\]\([^)\s]*\)\)?|\[\d{1,4}\]"
_CITATION_MARKER = re.compile(_MARKER_TEXT)
_LEADING_MARKERS = re.compile(rf"(?:\s*(?:{_MARKER_TEXT}))+")
# Inline code spans and bare URLs: text the segmenter must not look inside.
_OPAQUE = re.compile(r"(`+)[^`\n]*?\1|https?://\S+")


def segment_claims(content: str, *, language: str = "en") -> list[Segment]:
    """The claims of ``content`` in order: sentences, list items, headings and code blocks."""
    claims: list[Segment] = []
    position = 0
    for fence in _FENCE.finditer(content):
        claims.extend(_prose_claims(content, position, fence.start(), language))
        claims.append(_trimmed(content, fence.start(), fence.end()))
        position = fence.end()
    claims.extend(_prose_claims(content, position, len(content), language))
    return [claim for claim in claims if claim.text]


def _prose_claims(content: str, start: int, end: int, language: str) -> Iterator[Segment]:
    for block_start, block_end in _blocks(content, start, end):
        block = content[block_start:block_end]
        markers = [match.span() for match in _CITATION_MARKER.finditer(block)]
        masked = _CITATION_MARKER.sub(lambda m: " " * len(m.group()), block)
        masked = _OPAQUE.sub(lambda m: "x" * len(m.group()), masked)
        ranges = _sentences(masked, language)
        for index in range(1, len(ranges)):
            boundary = _after_markers(block, ranges[index][0], markers)
            ranges[index - 1] = (ranges[index - 1][0], boundary)
            ranges[index] = (boundary, max(boundary, ranges[index][1]))
        for sentence_start, sentence_end in ranges:
            yield _trimmed(content, block_start + sentence_start, block_start + sentence_end)


def _after_markers(block: str, boundary: int, markers: list[tuple[int, int]]) -> int:
    """``boundary`` moved past a marker it falls in and the markers right after it."""
    for start, end in markers:
        if start < boundary < end:
            boundary = end
            break
    leading = _LEADING_MARKERS.match(block, boundary)
    return leading.end() if leading is not None else boundary


def _blocks(content: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Paragraph pieces between blank lines; each heading, list item or quote line opens one."""
    block_start = start
    line_start = start
    while line_start < end:
        newline = content.find("\n", line_start, end)
        line_end = end if newline < 0 else newline
        line = content[line_start:line_end]
        marker = _MARKER.match(line)
        if not line.strip():
            yield block_start, line_start
            block_start = line_end
        elif marker is not None:
            yield block_start, line_start
            block_start = line_start + marker.end()
            if line.lstrip().startswith("#"):  # a heading is a block of one line
                yield block_start, line_end
                block_start = line_end
        line_start = line_end + 1
    yield block_start, end


def _sentences(text: str, language: str) -> list[tuple[int, int]]:
    import sentencex  # loaded on first use: `import router` stays light

    if not text.strip():
        return []
    ranges: list[tuple[int, int]] = []
    cursor = 0
    for boundary in sentencex.get_sentence_boundaries(language, text):
        sentence = str(boundary["text"])
        start, end = int(boundary["start_index"]), int(boundary["end_index"])
        if text[start:end] != sentence:  # offsets in another unit: find the text instead
            found = text.find(sentence, cursor)
            if found < 0:
                continue
            start, end = found, found + len(sentence)
        ranges.append((start, end))
        cursor = end
    if not ranges:
        return [(0, len(text))]
    return ranges


def _trimmed(content: str, start: int, end: int) -> Segment:
    piece = content[start:end]
    leading = len(piece) - len(piece.lstrip())
    trailing = len(piece.rstrip())
    return Segment(start + leading, start + trailing, piece[leading:trailing])
