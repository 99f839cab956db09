"""The one redaction of secrets: every string the router lets out passes :func:`redact_text`.

Error messages and fields (``RouterError`` redacts whatever is assigned to it), ``to_dict()``,
log events (``router.logging.redact_secrets``), batch rows (``router.batch.output``) and
everything the command line prints (``router.cli`` wraps stdout and stderr) go through it.

Configured secrets (``register_secret``: API keys and tokens from the settings) are of two
kinds, and the kind decides where they are looked for:

- A *strong* secret (:func:`is_strong_secret`: at least 16 characters and 3 bits of entropy per
  character, as real keys and tokens have) is removed everywhere, provider content included,
  and so is every run of 8 or more characters of it, so a secret cut short by a provider's
  message limit, or masked the way OpenAI masks keys, is caught as well as a whole one. No
  ordinary text holds such a run by chance.
- A *weak* one (``test``, ``dummy``, a short or repetitive value) is an ordinary word that
  answers, search queries and Vertex's Search Suggestions HTML may hold on their own account.
  Rewriting those would corrupt the caller's data, so a weak secret is removed only where
  secrets travel (error messages, log events, headers, URLs: every call without
  ``shapes=False``), and only as a whole token, never inside a longer word.
  :func:`register_secret` says once, through the ``router.text.redaction`` logger, which setting
  holds one.

Each value or run is matched as written, percent-encoded (as URL encoders write it, or every
byte) and JSON-escaped (``\\u`` escapes). Secret shapes that need no registration (OpenAI keys,
Google API keys and OAuth tokens, bearer tokens, Authorization headers) are removed too, except
from provider content. Matching the runs is one pass of an Aho-Corasick automaton
(ahocorasick-rs), so a 20 MB batch row costs tens of milliseconds, not seconds.

This module imports nothing from the router, so the error tree can use it.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any, TextIO
from urllib.parse import quote

__all__ = [
    "REDACTED",
    "RUN_CHARS",
    "RedactingStream",
    "is_strong_secret",
    "may_hold_strong_secret",
    "redact_text",
    "redacted_prefix",
    "register_secret",
    "secret_prefix_tail",
    "strong_secret_spans",
    "strong_secrets_registered",
]

REDACTED = "[REDACTED]"

RUN_CHARS = 8
"""A run of this many characters of a secret is treated as the secret."""

# A secret that starts within the part of a text that is shown lies wholly inside this much more
# of it (API keys and tokens are a few hundred characters at most), so redaction sees all of it.
_SECRET_WINDOW = 1_024
_MIN_SECRET_CHARS = 4

STRONG_SECRET_CHARS = 16
"""A secret shorter than this is weak: redacted only where secrets travel, as a whole token."""

STRONG_SECRET_BITS_PER_CHAR = 3.0
"""A secret with less entropy per character than this (``testtesttesttest``) is weak too."""

_log = logging.getLogger(__name__)

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


def is_strong_secret(value: str) -> bool:
    """Whether ``value`` is long and random enough that no ordinary text holds a run of it.

    Shannon entropy of its characters: a random base-62 key of 16 characters has about 3.8 bits
    a character, ``testtesttesttest`` 2, an English word of 16 letters about 3.3 but fewer than
    16 letters in practice.
    """
    if len(value) < STRONG_SECRET_CHARS:
        return False
    counts = Counter(value)
    length = len(value)
    bits = -sum(n / length * math.log2(n / length) for n in counts.values())
    return bits >= STRONG_SECRET_BITS_PER_CHAR


class _SecretRegistry:
    """Registered secrets: one automaton over every spelling of every run of the strong ones,
    one pattern over every spelling of the weak ones, whole."""

    def __init__(self) -> None:
        self._strong: set[str] = set()
        self._weak: set[str] = set()
        self._lock = threading.Lock()
        self.matcher: Any = None
        self.byte_matcher: Any = None
        self.prefixes: frozenset[str] = frozenset()
        self.longest_needle = 0
        self.weak_pattern: re.Pattern[str] | None = None

    def add(self, value: str) -> bool:
        """Register ``value``; True when it is new and weak (the caller says so once)."""
        with self._lock:
            if value in self._strong or value in self._weak:
                return False
            if is_strong_secret(value):
                self._strong.add(value)
                needles = _needles(self._strong)
                self.prefixes = frozenset(
                    needle[:size] for needle in needles for size in range(1, len(needle))
                )
                self.longest_needle = max(map(len, needles))
                self.byte_matcher = _byte_automaton(needles)
                self.matcher = _automaton(needles)
                return False
            self._weak.add(value)
            self.weak_pattern = _whole_tokens(self._weak)
            return True


def _needles(secrets: set[str]) -> set[str]:
    """Every spelling of every run of ``RUN_CHARS`` characters of the strong secrets."""
    needles: set[str] = set()
    for secret in secrets:
        for piece in (secret[i : i + RUN_CHARS] for i in range(len(secret) - RUN_CHARS + 1)):
            needles.update(_encodings(piece))
    return needles


def _automaton(needles: set[str]) -> Any:
    import ahocorasick_rs

    return ahocorasick_rs.AhoCorasick(sorted(needles))


def _byte_automaton(needles: set[str]) -> Any:
    import ahocorasick_rs

    # A DFA: more memory than the default automaton, and a scan about a third faster.
    return ahocorasick_rs.BytesAhoCorasick(
        sorted(_utf8(needle) for needle in needles),
        implementation=ahocorasick_rs.Implementation.DFA,
    )


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # as marshal writes a string


def _whole_tokens(secrets: set[str]) -> re.Pattern[str]:
    """Every spelling of every weak secret, matched only where no letter or digit touches it."""
    spellings = {spelling for secret in secrets for spelling in _encodings(secret)}
    alternatives = "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True))
    return re.compile(rf"(?<![0-9A-Za-z_])(?:{alternatives})(?![0-9A-Za-z_])")


_registry = _SecretRegistry()


def register_secret(value: str | None, *, name: str | None = None) -> None:
    """Redact this value from now on: everywhere when strong, only where secrets travel when weak.

    ``name`` (the setting that holds it) is what the one warning about a weak secret names; the
    value itself is never logged.
    """
    if value and len(value) >= _MIN_SECRET_CHARS and _registry.add(value):
        _log.warning(
            "weak_secret: %s is too short or too simple to tell from ordinary text; it is "
            "redacted from errors, logs, headers and URLs, but not from answers, which may "
            "hold the same word. Use a real key, or the emulator's (`grounding-router "
            "emulator` prints them).",
            name or "a configured secret",
        )


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
    """``text`` with every known secret, every run of a strong one, and every secret shape removed.

    ``shapes=False`` is for provider content passed on whole (answers, batch rows, printed
    responses, span attributes): only strong secrets and their runs are removed there, since an
    answer may quote an example key or header, or hold a weak secret's word on its own account.
    """
    matcher = _registry.matcher
    if matcher is not None and text:
        text = _without_runs(matcher, text)
    if shapes:
        weak = _registry.weak_pattern
        if weak is not None:
            text = weak.sub(REDACTED, text)
        for secret_shape, replacement in _SECRET_PATTERNS:
            text = secret_shape.sub(replacement, text)
    return text


def strong_secrets_registered() -> bool:
    """Whether any strong secret is registered (when none is, content needs no redaction)."""
    return _registry.matcher is not None


def strong_secret_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of ``text`` that ``redact_text(text, shapes=False)`` replaces,
    in order, each by one ``REDACTED``."""
    matcher = _registry.matcher
    if matcher is None or not text:
        return []
    return _match_spans(matcher, text)


def may_hold_strong_secret(texts: bytes | None) -> bool:
    """False when none of the strings ``texts`` holds (:func:`router.text.written.written`)
    holds a strong secret; True also when ``texts`` is None (a value marshal cannot write).

    One scan of the bytes with every needle as UTF-8. True may be wrong (a needle's bytes
    across a string's end and the next length field): the caller then looks again, string by
    string (:mod:`router.text.echoes`).
    """
    matcher = _registry.byte_matcher
    if matcher is None:
        return False
    if texts is None:
        return True
    return bool(matcher.find_matches_as_indexes(texts))


def secret_prefix_tail(text: str) -> int:
    """How many characters at the end of ``text`` could be the start of a strong secret's run.

    A stream that passes text on as it comes holds these back until the next piece shows
    whether they are a secret: redacting each piece alone would let a key sent a few characters
    at a time through.
    """
    prefixes = _registry.prefixes
    for size in range(min(len(text), _registry.longest_needle - 1), 0, -1):
        if text[-size:] in prefixes:
            return size
    return 0


def _match_spans(matcher: Any, text: str) -> list[tuple[int, int]]:
    try:
        matches = matcher.find_matches_as_indexes(text, overlapping=True)
    except UnicodeEncodeError:  # lone surrogates: matched on a copy, one code point for one
        matchable = _LONE_SURROGATE.sub("\ufffd", text)
        matches = matcher.find_matches_as_indexes(matchable, overlapping=True)
    return _spans(matches) if matches else []


def _without_runs(matcher: Any, text: str) -> str:
    spans = _match_spans(matcher, text)
    if not spans:
        return text
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces.append(text[position:start])
        pieces.append(REDACTED)
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


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
