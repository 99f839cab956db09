"""Seeded mutations of recorded provider bodies, for the end-to-end fuzz.

A case is built from a seed alone (``random.Random`` seeded with a string is stable across runs
and Python versions), so any failing case is rebuilt exactly by :func:`mutated_case` with the
seed its report names. A case mutates one recorded body one to six times: a field dropped, a
value swapped for another type, a string replaced by a hostile one (huge, unicode, control
characters, markup, a URL look-alike), a list emptied or multiplied, a number pushed out of
range. A few cases instead serve a recorded stream, mutated too, where JSON is expected.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["HOSTILE_STRINGS", "Case", "Corpus", "mutated_case"]

_DATA = Path(__file__).resolve().parents[1] / "data"
_HOSTILE_TEXT = [row["text"] for row in json.loads((_DATA / "hostile_text.json").read_text())]
_HOSTILE_URLS = [row["url"] for row in json.loads((_DATA / "hostile_urls.json").read_text())]

HOSTILE_STRINGS: list[str] = [
    *_HOSTILE_TEXT,
    *_HOSTILE_URLS,
    "",
    " ",
    "https://",
    "http://[::1",
    "https://exa mple.com/a b",
    "https://www.example.com/?utm_source=openai&gclid=1",
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ",
    "https://www.google.com/url?q=javascript:alert(1)",
    "https://例え.jp/パス?q=ü",
    "https://user:pw@example.com:8443/x#:~:text=y",
    "\ue200cite\ue202turn0search0\ue201",
    "Paris \ue200cite\ue202turn0sea",
    "example.com",
    "日本語の答え — Café 21°C \U0001f600",
    "\u0000",
    "{}",
    "[]",
    "null",
]
_ODD_VALUES: list[Any] = [
    None,
    0,
    -1,
    10**12,
    2**63,
    True,
    False,
    1.5,
    float("nan"),
    float("inf"),
    "",
    [],
    {},
    [None],
    {"": None},
]
_HUGE_CHARS = 20_000
KINDS = ("drop", "swap", "hostile", "huge", "empty", "multiply", "number")


@dataclass(frozen=True)
class Corpus:
    """The recorded bodies of one API: final states as JSON, and raw streams."""

    names: Sequence[str]
    bodies: Sequence[str]
    """JSON text of each body (parsed afresh for every case)."""
    streams: Sequence[tuple[str, str]] = ()
    """(name, raw SSE text) of the recorded streams."""


@dataclass
class Case:
    """One fuzz case: what is served and how it was made."""

    seed: str
    source: str
    body: bytes
    content_type: str = "application/json"
    mutations: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """Enough to rebuild and read the case: its seed, source body and mutations."""
        return f"seed={self.seed!r} source={self.source} mutations={self.mutations}"


def _nodes(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) below the root, depth first."""
    found: list[tuple[tuple[Any, ...], Any]] = []
    if isinstance(value, dict):
        children: Any = value.items()
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        return found
    for key, item in children:
        found.append(((*prefix, key), item))
        found.extend(_nodes(item, (*prefix, key)))
    return found


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# Which values each kind of mutation applies to: strings are replaced by hostile strings, lists
# emptied or multiplied, numbers pushed out of range; a swap puts a value of another type.
_TARGETS: dict[str, Any] = {
    "drop": lambda _: True,
    "swap": lambda _: True,
    "hostile": lambda value: isinstance(value, str),
    "huge": lambda value: isinstance(value, str),
    "empty": lambda value: isinstance(value, list | dict | str),
    "multiply": lambda value: isinstance(value, list),
    "number": _is_number,
}


def _mutate(body: Any, rng: random.Random) -> str | None:
    """Apply one random mutation to ``body`` in place; a description, or None if none applied."""
    kind = rng.choice(KINDS)
    candidates = [(path, value) for path, value in _nodes(body) if _TARGETS[kind](value)]
    if not candidates:
        return None
    path, current = rng.choice(candidates)
    parent = body
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    if kind == "drop":
        del parent[key]
    elif kind == "swap":
        # A copy: the same list or dict object swapped in twice could end up inside itself.
        odd = rng.choice([odd for odd in _ODD_VALUES if type(odd) is not type(current)])
        parent[key] = copy.deepcopy(odd)
    elif kind == "hostile":
        parent[key] = rng.choice(HOSTILE_STRINGS)
    elif kind == "huge":
        parent[key] = rng.choice([*HOSTILE_STRINGS, "a"]) * (_HUGE_CHARS // 20) + "end"
    elif kind == "empty":
        parent[key] = type(current)()
    elif kind == "multiply":
        parent[key] = current * rng.randrange(2, 9)
    else:
        parent[key] = rng.choice((-1, 0, 1, 2**31, 10**9, -(10**9)))
    return f"{kind} {'/'.join(map(str, path))}"


def _stream_case(corpus: Corpus, rng: random.Random, case: Case) -> None:
    name, text = rng.choice(corpus.streams)
    frames = text.split("\n\n")
    index = rng.randrange(len(frames))
    cut = rng.randrange(len(frames[index]) + 1)
    frames[index] = frames[index][:cut] + rng.choice(HOSTILE_STRINGS) + frames[index][cut:]
    case.source = name
    case.body = "\n\n".join(frames).encode("utf-8", "surrogatepass")
    case.content_type = rng.choice(("application/json", "text/event-stream"))
    case.mutations.append(f"stream served as the reply, frame {index} spliced at {cut}")


def mutated_case(corpus: Corpus, seed: str, *, stream_share: float = 0.05) -> Case:
    """The case ``seed`` names; the same seed always gives the same case."""
    rng = random.Random(seed)
    case = Case(seed=seed, source="", body=b"")
    if corpus.streams and rng.random() < stream_share:
        _stream_case(corpus, rng, case)
        return case
    index = rng.randrange(len(corpus.bodies))
    body = json.loads(corpus.bodies[index])
    for _ in range(rng.randint(1, 6)):
        described = _mutate(body, rng)
        if described is not None:
            case.mutations.append(described)
    case.source = corpus.names[index]
    # ensure_ascii: lone surrogates travel as \ud800 escapes, as a provider's JSON would carry them
    case.body = json.dumps(body).encode()
    return case
