"""Hostile batch input lines, built from a seed in plain Python (cheap, and reproducible).

A line is one of: a valid request (for one provider, or for several: ``"vendors"``), a request
with one field made hostile (ids blank, of the wrong type, repeated, shaped like a renamed
duplicate or a derived id; values nested past every parser limit, numbers past Python's digit
limit, NaN and infinities, lone surrogates, escape sequences; vendors, models and require of a
fan-out line too), any JSON value that is not an object, a line cut short, bytes that are not
UTF-8, control characters, or random bytes. No line holds a newline: each is exactly one line.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

__all__ = ["POISON_LINES", "fanout_request", "hostile_line", "valid_request"]

POISON_LINES = ("[" * 5_000 + "]" * 5_000, '{"request_id": ' + "1" * 5_000 + "}")
"""The two lines that stopped a batch for good: nested 5,000 deep, a 5,000-digit integer."""

_IDS: list[Any] = [
    "a",
    "a#line2",
    "a#line3",
    "a#line2.2",
    "line1-0123456789ab",
    "",
    "   ",
    "\t",
    None,
    5,
    [],
    {},
    "\ud800",
    "\x1b[31mred",
    "é" * 50,
]
_DEPTHS = (10, 254, 256, 300, 990, 999, 1_000, 1_001, 5_000, 50_000)
_NUMBERS = ("1e999", "-1e999", "NaN", "Infinity", "-Infinity", "1e-999", "-0.0", "9" * 4_301)
_RAW = (b"\xff\xfe", b"\xc3", b"\x00", b"\xef\xbb\xbf", b"\r", b"\x0b", b"\x0c", b"\x1b]0;t\x07")
_FIELDS = (
    "request_id",
    "vendor",
    "model",
    "messages",
    "grounded",
    "grounding_mode",
    "json_schema",
    "temperature",
    "max_output_tokens",
    "timeout_s",
    "user_location",
    "metadata",
    "vendors",
    "models",
    "require",
)
_VENDOR_LISTS: list[Any] = [
    ["openai", "vertex"],
    ["vertex"],
    [],
    ["openai", "openai"],
    ["openai", "nobody"],
    ["openai", 5],
    [["openai"]],
    ["OpenAI", "VERTEX"],
    [" "],
]


def valid_request(number: int, **fields: Any) -> dict[str, Any]:
    """A request the emulator answers, for input line ``number``."""
    vendor = "openai" if number % 2 else "vertex"
    return {
        "vendor": vendor,
        "model": "gpt-5" if vendor == "openai" else "gemini-2.5-flash",
        "messages": [{"role": "user", "content": f"hostile line {number}"}],
        **fields,
    }


def fanout_request(number: int, **fields: Any) -> dict[str, Any]:
    """A request for every vendor the emulator serves, for input line ``number``."""
    return {
        "vendors": ["openai", "vertex"],
        "messages": [{"role": "user", "content": f"hostile fan-out line {number}"}],
        **fields,
    }


def _nested(rng: random.Random) -> str:
    depth = rng.choice(_DEPTHS)
    if rng.random() < 0.5:
        return "[" * depth + "]" * depth
    return '{"k":' * depth + "0" + "}" * depth


def _hostile_value(rng: random.Random) -> str:
    """The JSON text of a hostile value."""
    makers: list[Callable[[], str]] = [
        lambda: _nested(rng),
        lambda: rng.choice(_NUMBERS),
        lambda: json.dumps(rng.choice(_IDS)),
        lambda: '"\\ud800\\udfff\\udc00"',
        lambda: json.dumps("x" * rng.choice((0, 1, 5_000))),
        lambda: "[" + ",".join(["{}"] * rng.randrange(0, 300)) + "]",
    ]
    return rng.choice(makers)()


def _with_field(rng: random.Random, number: int) -> str:
    """A valid request (one provider's or a fan-out) with one field's value made hostile."""
    make = fanout_request if rng.random() < 0.3 else valid_request
    request = make(number, request_id=rng.choice(_IDS[:5]))
    field = rng.choice(_FIELDS)
    text = json.dumps({**request, field: None})
    return text.replace(f'"{field}": null', f'"{field}": {_hostile_value(rng)}', 1)


def _not_an_object(rng: random.Random) -> str:
    return rng.choice(("1", '"text"', "[]", "null", "true", "[{}]", _hostile_value(rng)))


def _cut_short(rng: random.Random, number: int) -> str:
    text = json.dumps(valid_request(number, request_id=f"cut{number}"))
    return text[: rng.randrange(1, len(text))]


def _raw_bytes(rng: random.Random, number: int) -> bytes:
    text = json.dumps(valid_request(number)).encode()
    at = rng.randrange(0, len(text) + 1)
    return text[:at] + rng.choice(_RAW) + text[at:]


def _random_bytes(rng: random.Random) -> bytes:
    return bytes(rng.randrange(0, 256) for _ in range(rng.randrange(0, 200)))


def hostile_line(rng: random.Random, number: int) -> bytes:
    """One line (no newline in it) for input line ``number``."""
    roll = rng.random()
    if roll < 0.12:
        line: str | bytes = json.dumps(valid_request(number, request_id=rng.choice(_IDS)))
    elif roll < 0.18:
        vendors = rng.choice(_VENDOR_LISTS)
        line = json.dumps(fanout_request(number, request_id=rng.choice(_IDS), vendors=vendors))
    elif roll < 0.50:
        line = _with_field(rng, number)
    elif roll < 0.60:
        line = _not_an_object(rng)
    elif roll < 0.70:
        line = _cut_short(rng, number)
    elif roll < 0.85:
        line = _raw_bytes(rng, number)
    else:
        line = _random_bytes(rng)
    data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    return data.replace(b"\n", b" ")
