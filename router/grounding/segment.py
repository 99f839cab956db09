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
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from itertools import accumulate, chain, islice, pairwise
from typing import NamedTuple

__all__ = ["Segments", "segment_claims"]


class Segments(NamedTuple):
    """The claims' character ranges ``[start, end)`` in the answer and their texts, as columns
    (what the report's claims are built from, column by column)."""

    starts: list[int]
    ends: list[int]
    texts: list[str]


_FENCE = re.compile(
    r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S
)
# A block marker at the start of a line: heading, list item, quote; or a blank line.
_OPENER_TEXT = (
    r"(?P<line>)(?:[^\S\n]*$"
    r"|(?P<marker>[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]?)+))"
)
_LINE_OPENER = re.compile(_OPENER_TEXT, re.M)
# The same after a newline: the literal newline lets the engine skip from one line to the next.
_NEXT_LINE_OPENER = re.compile(r"\n" + _OPENER_TEXT, re.M)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Citation markers: a markdown link (in an optional parenthesised wrapper) or a numeric [3].
# Each branch opens with a literal character, so the regex engine skips ahead to the candidates
# (an optional opening parenthesis made every position one, at ten times the cost).
_MARKER_TEXT = r"\(\[[^\]\n]*\]\([^)\s]*\)\)|\[(?:[^\]\n]*\]\([^)\s]*\)|\d{1,4}\])"
_CITATION_MARKER = re.compile(_MARKER_TEXT)
# sentencex (1.0.32) panics, slicing inside a character, on some text with non-ASCII
# whitespace ("C\xa0. ", "C\u2028. x"). Each is one character in a str, so the same
# text with ASCII whitespace in its place has the same offsets: line and paragraph separators
# become newlines, the others spaces.
_LINE_BREAKS = "\x85\u2028\u2029"
# Each is replaced by str.replace, and only when the text holds it: a substring search per
# character costs a fraction of str.translate, which looks every character of the text up in a
# table (half of verify on a non-ASCII reply), and of a regex character class.
_ASCII_WHITESPACE = tuple(
    (character, "\n" if character in _LINE_BREAKS else " ")
    for character in map(chr, range(0x80, 0x3001))
    if character.isspace()
)
_LEADING_MARKERS = re.compile(rf"(?:\s*(?:{_MARKER_TEXT}))+")
# Inline code spans and bare URLs: text the segmenter must not look inside.
_OPAQUE = re.compile(r"`(`*)[^`\n]*?`\1|https?://\S*[^\s.,;:!?)\]]")


def segment_claims(content: str, *, language: str = "en") -> Segments:
    """The claims of ``content`` in order: sentences, list items, headings and code blocks."""
    claims = Segments([], [], [])
    position = 0
    # A fence needs three backticks or tildes: without them the fence scan is skipped.
    fences = _FENCE.finditer(content) if "```" in content or "~~~" in content else ()
    for fence in fences:
        _prose_claims(content, position, fence.start(), language, claims)
        _trim(content, 0, ((fence.start(), fence.end()),), claims)
        position = fence.end()
    _prose_claims(content, position, len(content), language, claims)
    return claims


def _prose_claims(content: str, start: int, end: int, language: str, claims: Segments) -> None:
    """The claims of the prose between two code fences, appended to ``claims``: one segmenter
    call for all its blocks."""
    region = content[start:end]
    if not region or region.isspace():
        return
    markers: list[tuple[int, int]] = []
    masked = _mask_markers(region, markers) if "[" in region else region
    if "`" in masked or "http" in masked:
        masked = _OPAQUE.sub(_letters, masked)
    sentences, tiled = _sentences(masked, language)
    sentence_starts = [sentence_start for sentence_start, _ in sentences]
    cursor = 0
    for block_start, block_end in _blocks(region):
        if block_start >= block_end:  # an empty block (a blank line) holds no piece
            continue
        if tiled:
            # The sentences cover the region end to end: a block's pieces are cut at the
            # sentence starts inside it, found by bisection.
            first = bisect_right(sentence_starts, block_start)
            last = bisect_left(sentence_starts, block_end, first)
            if first == last:  # one piece, the whole block: most blocks (trimmed in line)
                piece = region[block_start:block_end]
                text = piece.strip()
                if text:
                    at = start + block_end - len(piece.lstrip())
                    claims.starts.append(at)
                    claims.ends.append(at + len(text))
                    claims.texts.append(text)
                continue
            cuts = [block_start, *sentence_starts[first:last], block_end]
            pieces = [(cut, to) for cut, to in pairwise(cuts) if not region[cut:to].isspace()]
        else:
            pieces, cursor = _overlaps(region, block_start, block_end, sentences, cursor)
        if len(pieces) > 1:
            _move_cuts(region, block_end, pieces, markers)
        _trim(region, start, pieces, claims)


def _trim(text: str, offset: int, pieces: Iterable[tuple[int, int]], claims: Segments) -> None:
    """Each piece ``text[start:end]`` trimmed of surrounding whitespace, appended to ``claims``
    at ``offset`` past its place in ``text``; a blank piece is dropped."""
    for piece_start, piece_end in pieces:
        piece = text[piece_start:piece_end]
        stripped = piece.strip()
        if stripped:
            at = offset + piece_end - len(piece.lstrip())
            claims.starts.append(at)
            claims.ends.append(at + len(stripped))
            claims.texts.append(stripped)


def _overlaps(
    region: str, block_start: int, block_end: int, sentences: list[tuple[int, int]], cursor: int
) -> tuple[list[tuple[int, int]], int]:
    """The non-blank pieces of the sentences that overlap the block, and the first sentence that
    does (where the next block's search starts): for sentences that leave gaps between them."""
    count = len(sentences)
    while cursor < count and sentences[cursor][1] <= block_start:
        cursor += 1
    pieces = []
    for sentence_start, sentence_end in islice(sentences, cursor, None):
        if sentence_start >= block_end:
            break
        # Conditional expressions, not max() and min(): this runs for every sentence.
        piece_start = sentence_start if sentence_start > block_start else block_start
        piece_end = sentence_end if sentence_end < block_end else block_end
        if piece_start < piece_end and not region[piece_start:piece_end].isspace():
            pieces.append((piece_start, piece_end))
    return pieces, cursor


def _move_cuts(
    region: str, block_end: int, pieces: list[tuple[int, int]], markers: list[tuple[int, int]]
) -> None:
    """Each cut between two pieces moved past the citation markers right after it, in place."""
    marker_starts = [marker_start for marker_start, _ in markers]
    for number in range(1, len(pieces)):
        boundary = pieces[number][0]
        if markers:
            boundary = _after_markers(region, boundary, markers, marker_starts)
        boundary = min(boundary, block_end)
        pieces[number - 1] = (pieces[number - 1][0], boundary)
        pieces[number] = (boundary, max(boundary, pieces[number][1]))


def _mask_markers(region: str, markers: list[tuple[int, int]]) -> str:
    """``region`` with its citation markers as spaces, their spans appended to ``markers``.

    One scan: the spans are recorded as the markers are replaced.
    """

    def spaces(match: re.Match[str]) -> str:
        start, end = match.span()
        markers.append((start, end))
        return " " * (end - start)

    return _CITATION_MARKER.sub(spaces, region)


def _letters(match: re.Match[str]) -> str:
    return "x" * len(match.group())


def _after_markers(
    block: str, boundary: int, markers: list[tuple[int, int]], starts: list[int]
) -> int:
    """``boundary`` moved past a marker it falls in and the markers right after it.

    ``markers`` are the spans of the citation markers of ``block`` in order, ``starts`` their
    starts. Markers do not overlap, so at most one holds ``boundary``: the last that starts
    before it. A run of markers can only open where one of them starts, after nothing but
    whitespace: the regex runs only then.
    """
    after = bisect_left(starts, boundary)
    if after and markers[after - 1][1] > boundary:
        boundary = markers[after - 1][1]
    if after == len(starts):
        return boundary
    next_start = starts[after]  # the first marker after the one that held ``boundary``, if any
    if next_start > boundary and not block[boundary:next_start].isspace():
        return boundary
    leading = _LEADING_MARKERS.match(block, boundary)
    return leading.end() if leading is not None else boundary


def _blocks(region: str) -> list[tuple[int, int]]:
    """Paragraph pieces between blank lines; each heading, list item or quote line opens one.

    Openers are looked for at the region's start and after each newline: the pattern of the
    later ones opens with the newline, which the regex engine finds by a plain character search
    instead of trying the pattern at every position.
    """
    blocks = []
    block_start = 0
    end = len(region)
    first = _LINE_OPENER.match(region)
    openers = _NEXT_LINE_OPENER.finditer(region)
    for opener in chain((first,), openers) if first is not None else openers:
        line = opener.start("line")
        blocks.append((block_start, line))
        block_start = opener.end()
        marker = opener.group("marker")
        if marker is not None and marker.lstrip().startswith("#"):  # a heading: one line
            newline = region.find("\n", block_start)
            line_end = end if newline < 0 else newline
            blocks.append((block_start, line_end))
            block_start = line_end
    blocks.append((block_start, end))
    return blocks


def _sentences(text: str, language: str) -> tuple[list[tuple[int, int]], bool]:
    """The sentence ranges ``sentencex`` finds in ``text`` (paragraph breaks among them), and
    whether they cover it end to end.

    ``sentencex.segment`` gives the sentences' texts only, at half the cost of its boundary
    dicts; when they join back into ``text`` (no character dropped or changed), the ranges are
    their running lengths, end to end. Otherwise the boundaries are read with their offsets.
    """
    import sentencex  # loaded on first use: `import router` stays light

    if not text.strip():
        return [], False
    if not text.isascii():
        for character, ascii_whitespace in _ASCII_WHITESPACE:
            if character in text:
                text = text.replace(character, ascii_whitespace)
    try:
        pieces = sentencex.segment(language, text)
        if pieces and "".join(pieces) == text:
            ends = list(accumulate(map(len, pieces)))
            return list(zip([0, *ends[:-1]], ends, strict=True)), True
        return _boundaries(text, language), False
    except BaseException as error:  # a Rust panic is a BaseException (pyo3's PanicException)
        if type(error).__name__ != "PanicException":
            raise
        return [(0, len(text))], False  # the block as one claim: coarser, never lost


def _boundaries(text: str, language: str) -> list[tuple[int, int]]:
    import sentencex

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
