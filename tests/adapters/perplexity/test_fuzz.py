"""Malformed Perplexity replies never make the mapper raise, and what it returns is valid.

Replies come in two halves: the recorded Sonar bodies mutated (fields dropped, types swapped,
strings replaced, lists emptied or multiplied, markers rewritten), and replies assembled from
the fields the extractor reads with random, often wrong, values. Each runs through the lenient
mapper (``strict=False``, as ``extract()`` uses it), whose every citation must satisfy the
schema with spans inside the answer, and through the strict one, which may only raise
``ResponseParseError``. 1,000 replies by default; ``--runslow`` runs 10,000.
"""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.perplexity.reply import map_perplexity_reply
from router.errors import ResponseParseError
from router.types import LLMRequest
from support.citations import citation_problems
from support.mutations import Corpus, mutated_case
from support.recorded import files_for_vendor, load_final_body

CORPUS = Corpus(
    names=[path.name for path in files_for_vendor("perplexity")],
    bodies=[json.dumps(load_final_body(path)) for path in files_for_vendor("perplexity")],
)
REQUESTS = [
    LLMRequest.model_validate(
        {"vendor": "perplexity", "model": "sonar", "messages": [{"role": "user", "content": "q"}]}
    ),
    LLMRequest.model_validate(
        {
            "vendor": "perplexity",
            "model": "sonar",
            "messages": [{"role": "user", "content": "q"}],
            "json_mode": True,
        }
    ),
]
URLS = [
    "https://en.wikipedia.org/wiki/Ruby",
    "https://www.bbc.co.uk/news/x?utm_source=y",
    "HTTPS://Bücher.example/ä?x=1#:~:text=y",
    "http://[::1]:80/x",
    "javascript:alert(1)",
    "ftp://example.com/file",
    "",
    "not a url",
]
TEXTS = ["", " ", "[1]", "[0]", "[99]", "[1][2][3]", "Café — 21°C", "\ud800", "a\x00b", "x" * 600]
KEYS = ["choices", "message", "content", "citations", "search_results", "title", "url", "date",
        "last_updated", "snippet", "source", "usage", "cost", "total_cost", "num_search_queries",
        "delta", "finish_reason", "model", "id"]  # fmt: skip
FUZZ = settings(
    max_examples=500,  # per test: 1,000 replies in all
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)


def _text(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(URLS)
    if roll < 0.6:
        return rng.choice(TEXTS)
    alphabet = "ab [1]2]3[ .—°日\U0001f600\n"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth >= 3 or roll < 0.6:
        return rng.choice(
            [None, True, 0, -1, 7, 2**70, 1.5, float("nan"), float("inf"), _text(rng)]
        )
    if roll < 0.8:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def _maybe(rng: random.Random, good: Any) -> Any:
    return _value(rng) if rng.random() < 0.15 else good


def assembled_body(rng: random.Random) -> dict[str, Any]:
    """A reply with the fields the extractor reads and random, often wrong, values."""
    count = rng.randrange(0, 8)
    urls = [rng.choice(URLS) for _ in range(count)]
    results = [
        _maybe(
            rng,
            {
                "title": _maybe(rng, _text(rng)),
                "url": _maybe(rng, url),
                "date": _maybe(rng, rng.choice([None, "2025-01-01"])),
                "snippet": _maybe(rng, _text(rng)),
            },
        )
        for url in urls
    ]
    markers = "".join(f"[{rng.randrange(0, count + 3)}]" for _ in range(rng.randrange(0, 6)))
    content = _maybe(rng, f"{_text(rng)}{markers} {_text(rng)}")
    body: dict[str, Any] = {
        "choices": _maybe(rng, [{"message": _maybe(rng, {"content": content})}]),
        "usage": _maybe(rng, {"cost": _maybe(rng, {"total_cost": _value(rng)})}),
    }
    if rng.random() < 0.8:
        body["citations"] = _maybe(rng, urls)
    if rng.random() < 0.6:
        body["search_results"] = _maybe(rng, results)
    return body


def mutated_body(rng: random.Random) -> dict[str, Any]:
    """A recorded body mutated one to six times by the shared mutator (``support.mutations``)."""
    body: dict[str, Any] = json.loads(
        mutated_case(CORPUS, f"perplexity-fuzz:{rng.getrandbits(64)}").body
    )
    return body


def _check(rng: random.Random, body: dict[str, Any]) -> None:
    """The lenient mapper never raises and gives valid citations; the strict one raises only
    ResponseParseError."""
    request = rng.choice(REQUESTS)
    result = map_perplexity_reply(body, request, strict=False)
    for citation in result.citations:
        assert citation_problems(citation, result.content, provider="perplexity") == []
    if result.citations:
        assert result.grounded_effective is True
    with contextlib.suppress(ResponseParseError):
        map_perplexity_reply(body, request)


@FUZZ
@given(SEEDS)
def test_mutated_recorded_bodies(seed: int) -> None:
    """Mutated recorded bodies never raise; every citation satisfies the schema."""
    rng = random.Random(seed)
    _check(rng, mutated_body(rng))


@FUZZ
@given(SEEDS)
def test_assembled_random_bodies(seed: int) -> None:
    """Replies of random values in the right places never raise; citations are valid."""
    rng = random.Random(seed)
    _check(rng, assembled_body(rng))


@pytest.mark.slow
@pytest.mark.timeout(1_800)
@settings(FUZZ, max_examples=10_000)
@given(SEEDS)
def test_ten_thousand_replies(seed: int) -> None:
    """Both generators, 10,000 replies (run with --runslow)."""
    rng = random.Random(seed)
    _check(rng, mutated_body(rng) if rng.random() < 0.5 else assembled_body(rng))
