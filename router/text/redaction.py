"""The one redaction of secrets: every string the router lets out passes :func:`redact_text`.

Error messages and fields (``RouterError`` redacts whatever is assigned to it), ``to_dict()``,
log events (``router.logging.redact_secrets``), batch rows (``router.batch.output``) and
everything the command line prints (``router.cli`` wraps stdout and stderr) go through it.

It removes every configured secret (``register_secret``: API keys and tokens from the
settings) and every run of 8 or more characters of one, so a secret cut short by a provider's
message limit, or masked the way OpenAI masks keys, is caught as well as a whole one; each run
is matched as written, percent-encoded (as URL encoders write it, or every byte) and
JSON-escaped (``\\u`` escapes). Secret shapes that need no registration (OpenAI keys, Google
API keys and OAuth tokens, bearer tokens, Authorization headers) are removed too. Matching the
runs is one pass of an Aho-Corasick automaton (ahocorasick-rs), so a 20 MB batch row costs
tens of milliseconds, not seconds.

This module imports nothing from the router, so the error tree can use it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from typing import Any, TextIO
from urllib.parse import quote

__all__ = [
    "REDACTED",
    "RUN_CHARS",
    "RedactingStream",
    "redact_text",
    "redacted_prefix",
    "register_secret",
]

REDACTED = "[REDACTED]"

RUN_CHARS = 8
"""A run of this many characters of a secret is treated as the secret."""

# A secret that starts within the part of a text that is shown lies wholly inside this much more
# of it (API keys and tokens are a few hundred characters at most), so redaction sees all of it.
_SECRET_WINDOW = 1_024
_MIN_SECRET_CHARS = 4

# Secret shapes inside free text: OpenAI keys, Google API keys and OAuth tokens, bearer tokens
# and Authorization header lines.
_SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"(?i)\b(authorization\s*[:=]\s*)(?:bearer\s+|basic\s+)?[^\s,;'\"}]+"),
        r"\1" + REDACTED,
    ),
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"), r"\1" + REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{12,}"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), REDACTED),
    (re.compile(r"\bya29\.[0-9A-Za-z._-]{10,}"), REDACTED),
)


_PERCENT_ESCAPE = re.compile(r"%[0-9A-F]{2}")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _encodings(text: str) -> Iterator[str]:
    """``text`` as written, percent-encoded and JSON-escaped, in the spellings encoders use."""
    yield text
    data = text.encode("utf-8")
    for hex_format in ("%{:02X}", "%{:02x}"):
        yield "".join(hex_format.format(byte) for byte in data)  # every byte
    quoted = quote(text, safe="")  # what URL encoders write: unreserved characters stay
    yield quoted
    yield _PERCENT_ESCAPE.sub(lambda match: match.group().lower(), quoted)
    for unicode_format in ("\\u{:04x}", "\\u{:04X}"):
        yield "".join(unicode_format.format(ord(char)) for char in text)  # every character
    yield _json_escaped(text)


def _json_escaped(text: str) -> str:
    return json.dumps(text)[1:-1]


class _SecretRegistry:
    """Registered secrets and one automaton over every spelling of every run of them."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self.matcher: Any = None

    def add(self, value: str) -> None:
        with self._lock:
            if value in self._values:
                return
            self._values.add(value)
            self.matcher = _automaton(self._values)


def _automaton(secrets: set[str]) -> Any:
    import ahocorasick_rs

    needles: set[str] = set()
    for secret in secrets:
        pieces = (
            [secret]
            if len(secret) < RUN_CHARS
            else [secret[i : i + RUN_CHARS] for i in range(len(secret) - RUN_CHARS + 1)]
        )
        for piece in pieces:
            needles.update(_encodings(piece))
    return ahocorasick_rs.AhoCorasick(sorted(needles))


_registry = _SecretRegistry()


def register_secret(value: str | None) -> None:
    """Redact this value, and every run of 8 characters of it, wherever it appears from now on."""
    if value and len(value) >= _MIN_SECRET_CHARS:
        _registry.add(value)


def _spans(matches: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Overlapping and touching matches merged into the spans they cover, in order."""
    merged: list[tuple[int, int]] = []
    for _, start, end in sorted(matches, key=lambda match: match[1]):
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def redact_text(text: str, *, shapes: bool = True) -> str:
    """``text`` with every known secret, every run of one, and every secret shape removed.

    ``shapes=False`` removes only the configured secrets: for provider text passed on whole
    (batch rows, printed responses), where an answer may quote an example key or header.
    """
    matcher = _registry.matcher
    if matcher is not None and text:
        try:
            matches = matcher.find_matches_as_indexes(text, overlapping=True)
        except UnicodeEncodeError:  # lone surrogates: matched on a copy, one code point for one
            matchable = _LONE_SURROGATE.sub("\ufffd", text)
            matches = matcher.find_matches_as_indexes(matchable, overlapping=True)
        if matches:
            pieces: list[str] = []
            position = 0
            for start, end in _spans(matches):
                pieces.append(text[position:start])
                pieces.append(REDACTED)
                position = end
            pieces.append(text[position:])
            text = "".join(pieces)
    if shapes:
        for secret_shape, replacement in _SECRET_PATTERNS:
            text = secret_shape.sub(replacement, text)
    return text


def redacted_prefix(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` with secrets removed before the cut.

    Cutting first could leave the head of a secret that redaction no longer recognises.
    """
    return redact_text(text[: limit + _SECRET_WINDOW])[:limit]


class RedactingStream:
    """A text stream that redacts whatever is written to it (the command line's stdout/stderr).

    Each ``write`` is redacted whole; the CLI writes a line, a table or a JSON document per
    call, so a secret is never split between two writes.
    """

    def __init__(self, stream: TextIO, *, shapes: bool = True) -> None:
        self._stream = stream
        self._shapes = shapes

    @property
    def wrapped(self) -> TextIO:
        """The stream written to."""
        return self._stream

    def write(self, text: str) -> int:
        self._stream.write(redact_text(text, shapes=self._shapes))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
