"""Hostile provider replies and the check that printed output cannot drive a terminal.

``hostile_reply`` takes a recorded body and puts the texts of ``tests/data/hostile_text.json``
(ANSI and OSC escape sequences, terminal hyperlinks, C1 controls, bidirectional overrides,
markup) into every title, snippet, query, domain and answer text (``text`` parts, or a chat
message's ``content``), so they reach every place the
CLI prints provider text. ``unsafe_characters`` lists what a terminal would act on.
"""

from __future__ import annotations

import json
import re
from itertools import cycle
from pathlib import Path
from typing import Any

__all__ = ["HOSTILE_TEXTS", "VISIBLE_WORDS", "hostile_reply", "unsafe_characters"]

_ROWS = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "hostile_text.json").read_text("utf-8")
)
HOSTILE_TEXTS: list[str] = [row["text"] for row in _ROWS]
VISIBLE_WORDS = ("headline", "Forged", "Official", "markup", "alert(document.cookie)")
"""Words of the hostile texts that must still be printed, as plain text, once neutralised."""

# What a terminal acts on: C0 controls but newline and tab, DEL, C1 controls (8-bit CSI/OSC),
# bidirectional overrides, isolates and marks (LRM, RLM, ALM), and lone surrogates (which
# cannot even be written).
_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_TEXT_KEYS = frozenset({"title", "snippet", "query", "domain", "text"})
_LIST_KEYS = frozenset({"queries", "webSearchQueries"})


def unsafe_characters(output: str) -> list[str]:
    """Each unsafe character of ``output`` with a little context, for an assertion message."""
    return [
        f"{match.group()!r} near {output[max(match.start() - 20, 0) : match.end() + 20]!r}"
        for match in _UNSAFE.finditer(output)
    ]


def hostile_reply(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with hostile texts in every text field (answers get all of them at once)."""
    texts = cycle(HOSTILE_TEXTS)
    answer = " ".join(HOSTILE_TEXTS)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            changed = {}
            for key, item in value.items():
                if key in ("text", "content") and isinstance(item, str):
                    changed[key] = answer
                elif key in _TEXT_KEYS and isinstance(item, str):
                    changed[key] = f"{next(texts)} {item}"
                elif key in _LIST_KEYS and isinstance(item, list):
                    changed[key] = [f"{next(texts)} {query}" for query in item]
                else:
                    changed[key] = walk(item)
            return changed
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    hostile: dict[str, Any] = walk(body)
    return hostile
