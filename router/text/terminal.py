"""Printing provider text for people without letting it drive the terminal.

Titles, snippets and answers come from the web: they can carry ANSI/OSC escape sequences
(colours, cursor moves, terminal hyperlinks, window titles) and rich markup. Everything printed
goes through :func:`terminal_safe` and is handed to rich as plain ``Text``, never as markup.
JSON printed for programs goes through :func:`json_for_terminal`, which escapes what JSON
itself leaves raw; warnings, which can quote provider values (google-genai's do), through
:func:`show_warning`; log events, which carry reply ids, finish reasons, models and the
``[CITATIONS]`` warning, through :func:`terminal_safe_fields` (console lines) or
:func:`json_for_terminal` (JSON lines), as ``router.logging.configure_logging`` sets up.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any, TextIO

__all__ = [
    "WARNING_CHARS",
    "json_for_terminal",
    "show_warning",
    "terminal_safe",
    "terminal_safe_fields",
]

# ESC-introduced sequences (CSI, OSC up to BEL or ST, DCS/SOS/PM/APC strings, two-byte escapes),
# their 8-bit C1 forms, then any other C0/C1 control except newline and tab, the Unicode
# bidirectional overrides that can make text read differently from what it is, and lone
# surrogates, which cannot be written at all.
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
# The bidirectional marks (LRM U+200E, RLM U+200F, ALM U+061C) reorder text as the overrides
# and isolates do, only less visibly.
_OTHER_CONTROLS = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
# What JSON leaves raw inside strings that a terminal may still act on (C0 controls are already
# escaped by every JSON encoder); escaping it keeps the JSON valid and its values exact.
_RAW_IN_JSON = re.compile(
    r"[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
WARNING_CHARS = 500


def terminal_safe(text: str | None, *, single_line: bool = False) -> str:
    """``text`` with escape sequences and control characters removed (newlines kept)."""
    if not text:
        return ""
    cleaned = _OTHER_CONTROLS.sub("", _ESCAPE_SEQUENCES.sub("", text))
    if single_line:
        cleaned = " ".join(cleaned.split())
    return cleaned


# Fields whose text is meant to span lines (a formatted traceback); every other field is folded
# onto one line, so a value cannot forge log lines of its own.
_MULTILINE_FIELDS = frozenset({"exception", "stack"})


def terminal_safe_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A log event with every string in it, keys included, made :func:`terminal_safe`."""
    return {
        terminal_safe(str(key), single_line=True): _safe_value(value, key in _MULTILINE_FIELDS)
        for key, value in fields.items()
    }


def _safe_value(value: Any, multiline: bool, depth: int = 0) -> Any:
    if isinstance(value, str):
        return terminal_safe(value, single_line=not multiline)
    if depth > 8:
        return terminal_safe(repr(value), single_line=True)
    if isinstance(value, Mapping):
        return {
            _safe_value(key, False, depth + 1): _safe_value(item, False, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [_safe_value(item, False, depth + 1) for item in value]
    return value


def json_for_terminal(text: str) -> str:
    """JSON text with C1 controls, bidirectional controls and lone surrogates escaped."""
    return _RAW_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def show_warning(  # noqa: PLR0917 - the signature warnings.showwarning calls
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` for the CLI: one safe, bounded line per warning."""
    del line
    text = terminal_safe(str(message), single_line=True)
    if len(text) > WARNING_CHARS:
        text = text[: WARNING_CHARS - 1] + "…"
    where = terminal_safe(f"{filename}:{lineno}", single_line=True)
    print(f"{where}: {category.__name__}: {text}", file=file or sys.stderr)
