"""One answer text part as it streams in: citation tokens removed exactly as ``answer`` does.

:func:`adapters.openai_compatible.answer.strip_citation_tokens` removes the private-use citation
tokens (and the spaces or tabs right before one) from a whole part. A stream delivers the part in
pieces, and a token, or the spaces before one, may be cut between two deltas; so a piece is
delivered only once no later text can change how it is stripped:

- trailing spaces and tabs wait for the next character (a token may follow them);
- an opened token (``\\ue200``) that is not yet closed, and the spaces before it, wait until
  it closes, another token opens, or more than 256 characters follow (when the regular
  expression no longer takes it for a token).

What is delivered is therefore always a prefix of the stripped whole part, and when the part
closes the rest goes out. Parts without any marker character (nearly all prose) take a fast
path that never rescans the part.
"""

from __future__ import annotations

from adapters.openai_compatible.answer import _CITATION_TOKEN, content_offset, strip_citation_tokens
from router.types import Span

__all__ = ["StreamedPart"]

_BLANKS = " \t"


def _has_marker(text: str) -> bool:
    return "\ue200" in text or "\ue201" in text or "\ue202" in text


class StreamedPart:
    """The text of one ``output_text`` part, fed delta by delta."""

    __slots__ = ("_clean", "_clean_pieces", "_pending", "_raw", "_removed", "base", "closed")

    def __init__(self, base: int) -> None:
        self.base = base
        """Characters of answer text delivered before this part."""
        self.closed = False
        self._raw: list[str] = []  # the part as sent, once a marker was seen
        self._clean_pieces: list[str] = []
        self._clean = 0  # characters delivered from this part
        self._pending = ""  # fast path: the trailing blanks held back
        self._removed: tuple[tuple[int, int], ...] = ()

    @property
    def raw_length(self) -> int:
        """Characters of the part as sent so far (the offsets' coordinate space)."""
        if self._raw:
            return sum(map(len, self._raw))
        return self._clean + len(self._pending)

    def add(self, delta: str) -> str:
        """Take one delta; returns the text that can be delivered now."""
        if self.closed or not delta:
            return ""
        if not self._raw and not _has_marker(delta):
            pending = self._pending + delta
            ready = pending.rstrip(_BLANKS)
            self._pending = pending[len(ready) :]
            return self._deliver(ready)
        if not self._raw:  # the first marker: from now on the part is rescanned
            self._raw = ["".join(self._clean_pieces), self._pending]
            self._pending = ""
        self._raw.append(delta)
        return self._settle(final=False)

    def close(self) -> str:
        """The part is complete: everything not yet delivered."""
        if self.closed:
            return ""
        self.closed = True
        if not self._raw:
            rest, self._pending = self._pending, ""
            return self._deliver(rest)
        return self._settle(final=True)

    def raw_text(self) -> str:
        """The part as sent so far, tokens and all (what a final body would hold)."""
        if self._raw:
            return "".join(self._raw)
        return self.text() + self._pending

    def text(self) -> str:
        """The part's text delivered so far."""
        if len(self._clean_pieces) > 1:
            self._clean_pieces = ["".join(self._clean_pieces)]
        return self._clean_pieces[0] if self._clean_pieces else ""

    def span(self, start: object, end: object) -> Span | None:
        """The answer span of the part's offsets ``[start, end)``, once delivered; else None.

        None as well for offsets that are not integers, fall outside the part or cover nothing once
        the tokens are removed, as :meth:`adapters.openai_compatible.answer.AnswerText.span` says.
        """
        if type(start) is not int or type(end) is not int:
            return None
        if not 0 <= start < end <= self.raw_length:
            return None
        first = content_offset(self._removed, start)
        last = content_offset(self._removed, end)
        if first >= last or last > self._clean:
            return None
        delivered = self.text()
        return {"start": self.base + first, "end": self.base + last, "text": delivered[first:last]}

    def _deliver(self, text: str) -> str:
        if text:
            self._clean_pieces.append(text)
            self._clean += len(text)
        return text

    def _settle(self, *, final: bool) -> str:
        raw = "".join(self._raw)
        self._raw = [raw]
        safe = len(raw) if final else _settled_length(raw)
        clean, self._removed = strip_citation_tokens(raw[:safe])
        return self._deliver(clean[self._clean :])


def _settled_length(raw: str) -> int:
    """The length of the prefix of ``raw`` that later text cannot strip differently."""
    for match in _CITATION_TOKEN.finditer(raw):
        if match.end() == len(raw) and "\ue200" in match.group() and not raw.endswith("\ue201"):
            return match.start()  # an open token at the end: it, and the blanks before it, wait
    return len(raw.rstrip(_BLANKS))
