"""The answer split into claims: markdown blocks first, then sentences by ``sentencex``.

A segmenter alone reads markdown as prose: it glues a list item to the next one, splits inside
a code span at ``. `` and may cut a link marker ``([site](url))`` at the dots of its URL. So:

1. Fenced code blocks are claims of their own, kept whole (a sentence rule never cuts code).
2. The rest is cut into blocks at blank lines, headings and list items; a heading or list
   marker is not part of its claim's text.
3. Before the prose goes to the segmenter (once for all its blocks: each call has a set-up
   cost), inline code spans and bare URLs are masked with
   letters, and citation markers (``([site](url))``, ``[3]``) with spaces, each of the same
   length: offsets stay put, nothing inside them ends a sentence, and a marker right after a
   full stop does not hide the stop ("city.[1][2] About" is two sentences).
4. The segmenter's sentences are cut at the block boundaries. A citation marker belongs to the
   sentence it follows: markers that open a sentence are moved to the end of the one before.
   Sentences are trimmed of surrounding whitespace; blank ones are dropped.

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
_LINE_OPENER = re.compile(
    r"^(?:[^\S\n]*$|(?P<marker>[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?)+))",
    re.M,
)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Citation markers: a markdown link (in an optional parenthesised wrapper) or a numeric [3].
# Each branch opens with a literal character, so the regex engine skips ahead to the candidates
# (an optional opening parenthesis made every position one, at ten times the cost).
_MARKER_TEXT = r"\(\[[^\]\n]*\]\([^)\s]*\)\)|\[(?:[^\]\n]*\]\([^)\s]*\)|\d{1,4}\])"
_CITATION_MARKER = re.compile(_MARKER_TEXT)
_LEADING_MARKERS = re.compile(rf"(?:\s*(?:{_MARKER_TEXT}))+")
# Inline code spans and bare URLs: text the segmenter must not look inside.
_OPAQUE = re.compile(r"`(`*)[^`\n]*?`\1|https?://\S*[^\s.,;:!?)\]]")


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
    """The claims of the prose between two code fences: one segmenter call for all its blocks."""
    region = content[start:end]
    if not region.strip():
        return
    markers = [match.span() for match in _CITATION_MARKER.finditer(region)]
    masked = _CITATION_MARKER.sub(_spaces, region) if markers else region
    masked = _OPAQUE.sub(_letters, masked)
    sentences = _sentences(masked, language)
    cursor = 0
    for block_start, block_end in _blocks(region, 0, len(region)):
        while cursor < len(sentences) and sentences[cursor][1] <= block_start:
            cursor += 1
        pieces = []
        index = cursor
        while index < len(sentences) and sentences[index][0] < block_end:
            piece_start = max(sentences[index][0], block_start)
            piece_end = min(sentences[index][1], block_end)
            if piece_start < piece_end and not region[piece_start:piece_end].isspace():
                pieces.append((piece_start, piece_end))
            index += 1
        for number in range(1, len(pieces)):
            boundary = min(_after_markers(region, pieces[number][0], markers), block_end)
            pieces[number - 1] = (pieces[number - 1][0], boundary)
            pieces[number] = (boundary, max(boundary, pieces[number][1]))
        for piece_start, piece_end in pieces:
            yield _trimmed(content, start + piece_start, start + piece_end)


def _spaces(match: re.Match[str]) -> str:
    return " " * len(match.group())


def _letters(match: re.Match[str]) -> str:
    return "x" * len(match.group())


def _after_markers(block: str, boundary: int, markers: list[tuple[int, int]]) -> int:
    """``boundary`` moved past a marker it falls in and the markers right after it."""
    if not markers:
        return boundary
    for start, end in markers:
        if start < boundary < end:
            boundary = end
            break
    leading = _LEADING_MARKERS.match(block, boundary)
    return leading.end() if leading is not None else boundary


def _blocks(content: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Paragraph pieces between blank lines; each heading, list item or quote line opens one.

    Only blank and marker-led lines are visited (one regex scan), not every line of prose.
    """
    block_start = start
    for opener in _LINE_OPENER.finditer(content, start, end):
        line_start = opener.start()
        yield block_start, line_start
        if opener.group("marker") is None:  # a blank line
            block_start = opener.end()
            continue
        block_start = opener.end()
        if opener.group("marker").lstrip().startswith("#"):  # a heading is a block of one line
            newline = content.find("\n", block_start, end)
            line_end = end if newline < 0 else newline
            yield block_start, line_end
            block_start = line_end
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
