"""Printing provider text for people without letting it drive the terminal.

Titles, snippets and answers come from the web: they can carry ANSI/OSC escape sequences
(colours, cursor moves, terminal hyperlinks, window titles) and rich markup. Everything printed
goes through :func:`terminal_safe` and is handed to rich as plain ``Text``, never as markup.
"""

from __future__ import annotations

import re

__all__ = ["terminal_safe"]

# ESC-introduced sequences (CSI, OSC up to BEL or ST, DCS/SOS/PM/APC strings, two-byte escapes),
# their 8-bit C1 forms, then any other C0/C1 control except newline and tab, and the Unicode
# bidirectional overrides that can make text read differently from what it is.
_ESCAPE_SEQUENCES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]            # CSI ... final byte
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)? # OSC ... BEL or ST (terminal hyperlinks, titles)
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?      # DCS, SOS, PM, APC strings
  | \x1b[ -~]?                         # any other escape
  | \x9b[0-?]*[ -/]*[@-~]              # 8-bit CSI
  | \x9d[^\x07\x9c]*[\x07\x9c]?        # 8-bit OSC
  """,
    re.VERBOSE,
)
_OTHER_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str | None, *, single_line: bool = False) -> str:
    """``text`` with escape sequences and control characters removed (newlines kept)."""
    if not text:
        return ""
    cleaned = _OTHER_CONTROLS.sub("", _ESCAPE_SEQUENCES.sub("", text))
    if single_line:
        cleaned = " ".join(cleaned.split())
    return cleaned
