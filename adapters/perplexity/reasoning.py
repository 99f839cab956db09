"""The ``<think>`` block Sonar reasoning models put before their answer (pure).

``sonar-reasoning`` and ``sonar-reasoning-pro`` answer as ``<think>…</think>`` followed by the
answer. The block is the model's reasoning, not its answer: it is taken off the answer text (so
citation spans are offsets into the answer alone, and ``[n]`` markers inside the reasoning cite
nothing) and kept apart. A block that never closes (the reply was cut off while reasoning)
leaves no answer. Text that does not start with ``<think>`` (after whitespace) is all answer.
"""

from __future__ import annotations

import re

__all__ = ["ThinkFilter", "split_reasoning"]

_OPEN = "<think>"
_CLOSE = "</think>"
_CLOSED_BLOCK = re.compile(r"\A\s*<think>(.*?)</think>\s*", re.DOTALL)


def split_reasoning(text: str) -> tuple[str | None, str]:
    """``(reasoning, answer)``: the leading think block's text (None without one) and the rest."""
    match = _CLOSED_BLOCK.match(text)
    if match is not None:
        return match[1].strip(), text[match.end() :]
    head = text.lstrip()
    if head.startswith(_OPEN):
        return head[len(_OPEN) :].strip(), ""
    return None, text


class ThinkFilter:
    """Streamed answer pieces in, the answer's own pieces out: a leading think block is held
    back, so the text a stream shows is the text its final answer holds."""

    def __init__(self) -> None:
        self._held = ""  # the text before the block is known to open (or not)
        self._parts: list[str] = []  # the text since the block opened, piece by piece
        self._tail = ""  # its last characters: a closing tag may be cut between two pieces
        self._opened = False
        self._closed = False
        self._passing = False

    def feed(self, piece: str) -> str:
        """The answer text ``piece`` adds ("" while a think block may still be arriving).

        Each piece is scanned once for the closing tag (with the few characters before it that
        could begin one), so a long reasoning block costs work in proportion to its length.
        """
        if self._passing:
            return piece
        if not self._opened:
            self._held += piece
            head = self._held.lstrip()
            if not head or _OPEN.startswith(head):
                return ""  # nothing yet, or the opening tag itself still arriving
            if not head.startswith(_OPEN):
                self._passing = True
                return self._held
            self._opened = True
            self._parts = [self._held]
            scanned = self._held
        else:
            self._parts.append(piece)
            scanned = self._tail + piece
        if not self._closed:
            if _CLOSE not in scanned:
                self._tail = scanned[-(len(_CLOSE) - 1) :]
                return ""
            self._closed = True
        answer = split_reasoning(self._whole())[1]
        if answer:
            self._passing = True
        return answer

    def flush(self) -> str:
        """At the stream's end, the answer text still held back: text that only looked like the
        start of a think block (``<`` alone, or whitespace); "" inside an unfinished block."""
        if self._passing:
            return ""
        self._passing = True
        return split_reasoning(self._whole() if self._opened else self._held)[1]

    def _whole(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""
