"""Malformed replies never make the Vertex extractors raise, and what they return is valid.

10,000 replies in two halves: the recorded bodies mutated (fields dropped, types swapped,
strings replaced, lists emptied or multiplied, keys respelled in snake_case), and replies
assembled from the fields the extractors read, with random and often wrong values in them.
Hypothesis supplies a seed per example and the bodies are built from ``random.Random(seed)``
in plain Python: drawing every value through Hypothesis would cost ten times as long. The run is
derandomized, so a failure reproduces. ``--runslow`` runs ten times as many.

The Gemini Developer API's replies are read by the same mappers under the "gemini" vendor: 1,000
more replies check that, 10,000 with ``--runslow``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.vertex.adapter import extract_vertex_grounding
from adapters.vertex.apis import GEMINI, VERTEX, GoogleApi
from adapters.vertex.citations import read_vertex_reply
from router.citations.resolution import redirect_link_urls, with_resolved_redirects
from support.citations import citation_problems as check_citation
from support.mutations import Corpus, mutated_case
from support.recorded import load_final_body
from support.vertex import GENERATE_CONTENT_FILES, INTERACTIONS_FILES

_FILES = GENERATE_CONTENT_FILES + INTERACTIONS_FILES
CORPUS = Corpus(
    names=[path.name for path in _FILES],
    bodies=[json.dumps(load_final_body(path)) for path in _FILES],
)
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"
KEYS = [
    "candidates", "content", "parts", "text", "thought", "toolCall", "groundingMetadata",
    "groundingChunks", "web", "uri", "url", "title", "domain", "host", "retrievedContext",
    "maps", "image", "sourceUri", "imageUri", "source", "reference", "groundingSupports",
    "segment", "startIndex", "endIndex", "partIndex", "groundingChunkIndices",
    "webSearchQueries", "searchEntryPoint", "renderedContent", "citations", "citedSources",
    "groundingAttributions", "supportingContent", "sources", "webSearchSources",
    "retrievalMetadata", "citationMetadata", "usageMetadata", "modelVersion", "snippet",
    "grounding_chunks", "web_search_queries", "start_index",
]  # fmt: skip
SOURCE_LISTS = KEYS[30:36]
URLS = [
    REDIRECT + "a",
    REDIRECT + "b",
    "https://www.bbc.co.uk/news/x?utm_medium=y",
    "https://example.com/",
    "https://www.google.com/search?q=time in Rome",
    "https://docs.python.org/3/library/json.html",
    "HTTPS://Bücher.example/ä?x=1#:~:text=y",
    "http://[::1]:80/x",
    "gs://bucket/a.pdf",
    "javascript:alert(1)",
]
TEXTS = ["", " ", "wikipedia.org", "Café — 21°C", "\ud800", "a\x00b", "x" * 300, "日本語の答え"]
FUZZ = settings(
    max_examples=5_000,  # per test: 10,000 replies in all
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# A seed per example, not st.randoms(): every call on Hypothesis's own Random is a draw of its
# engine, which made building one reply cost milliseconds. A failure prints its seed.
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
_CAPITAL = re.compile(r"(?<!^)([A-Z])")


def _text(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.3:
        return rng.choice(URLS)
    if roll < 0.6:
        return rng.choice(TEXTS)
    alphabet = "abc .,—°€日\U0001f600\n" if rng.random() < 0.5 else "The sky is blue. "
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))


def _scalar(rng: random.Random) -> Any:
    makers: list[Callable[[], Any]] = [
        lambda: None,
        lambda: rng.random() < 0.5,
        lambda: rng.randrange(-(2**40), 2**40),
        lambda: rng.randrange(-2, 60),
        lambda: rng.choice([float("nan"), float("inf"), -0.5, 3.0]),
        lambda: _text(rng),
    ]
    return rng.choice(makers)()


def _value(rng: random.Random, depth: int = 0) -> Any:
    """Any JSON-like value: mostly scalars, sometimes short lists and dicts."""
    roll = rng.random()
    if depth >= 3 or roll < 0.6:
        return _scalar(rng)
    if roll < 0.8:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def _maybe(rng: random.Random, good: Any, wrong: float = 0.15) -> Any:
    """Usually ``good`` (a value of the right shape), sometimes anything at all."""
    return _value(rng) if rng.random() < wrong else good


def _source(rng: random.Random) -> Any:
    fields = {
        key: _maybe(rng, _text(rng))
        for key in rng.sample(["uri", "url", "title", "domain", "text", "sourceUri"], 3)
    }
    if rng.random() < 0.3:
        fields[rng.choice(["web", "source", "reference"])] = {"url": rng.choice(URLS)}
    if rng.random() < 0.3:
        fields["segment"] = _segment(rng, 60)
    return rng.choice([fields, fields, _text(rng)])


def _segment(rng: random.Random, size: int) -> Any:
    segment: dict[str, Any] = {"endIndex": _maybe(rng, rng.randrange(0, size + 3))}
    if rng.random() < 0.7:
        segment["startIndex"] = _maybe(rng, rng.randrange(0, size + 1))
    if rng.random() < 0.2:
        segment["partIndex"] = _maybe(rng, rng.randrange(0, 3))
    if rng.random() < 0.5:
        segment["text"] = _text(rng)
    return segment


def assembled_body(rng: random.Random) -> dict[str, Any]:
    """A reply with the fields the extractors read, and random, often wrong, values."""
    candidates = []
    for _ in range(rng.choice([1, 1, 1, 2])):
        parts = [{"text": _text(rng)} for _ in range(rng.randrange(0, 3))]
        if rng.random() < 0.2:
            parts.insert(0, {"text": _text(rng), "thought": _maybe(rng, True)})
        size = len("".join(p["text"] for p in parts).encode("utf-8", "surrogatepass"))
        kinds = ["web", "retrievedContext", "maps", "image"]
        chunks = [
            _maybe(rng, {rng.choice(kinds): _source(rng)}) for _ in range(rng.randrange(0, 5))
        ]
        supports = [
            {
                "segment": _maybe(rng, _segment(rng, size)),
                "groundingChunkIndices": _maybe(
                    rng, [rng.randrange(-1, len(chunks) + 2) for _ in range(3)]
                ),
            }
            for _ in range(rng.randrange(0, 5))
        ]
        grounding: dict[str, Any] = {"groundingChunks": chunks, "groundingSupports": supports}
        if rng.random() < 0.5:
            grounding["webSearchQueries"] = _maybe(rng, [_text(rng), _text(rng)])
        for name in rng.sample(SOURCE_LISTS, rng.randrange(0, 3)):
            grounding[name] = _maybe(rng, [_source(rng) for _ in range(2)])
        candidate: dict[str, Any] = {
            "content": _maybe(rng, {"parts": parts}),
            "groundingMetadata": _maybe(rng, grounding),
        }
        if rng.random() < 0.2:
            candidate["citationMetadata"] = {"citations": [_source(rng)]}
        candidates.append(candidate)
    return {"candidates": candidates, "usageMetadata": _value(rng)}


def _slots(value: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key-or-index) of a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield value, key
            yield from _slots(item)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield value, position
            yield from _slots(item)


def mutated_body(rng: random.Random) -> dict[str, Any]:
    """A recorded body mutated one to six times by the shared mutator (``support.mutations``),
    then some of its keys respelled in snake_case, which Vertex replies may use as well."""
    seed = f"vertex-fuzz:{rng.getrandbits(64)}"
    body: dict[str, Any] = json.loads(mutated_case(CORPUS, seed).body)
    for _ in range(rng.randrange(0, 3)):
        named = [(container, key) for container, key in _slots(body) if isinstance(key, str)]
        if not named:
            break
        container, key = rng.choice(named)
        container[_CAPITAL.sub(r"_\1", key).lower()] = container.pop(key)
    return body


def _check(rng: random.Random, body: dict[str, Any], api: GoogleApi = VERTEX) -> None:
    """Extraction does not raise; every citation is valid, also after resolving its redirects."""
    reply = read_vertex_reply(body, api=api)
    for citation in reply.citations:
        assert check_citation(citation, reply.content, provider=api.vendor) == []
    assert reply.grounding.citation_count == len(reply.citations)
    links = redirect_link_urls(reply.citations)
    if links and rng.random() < 0.3:
        targets = {
            url: rng.choice([_text(rng), f"https://site{rng.randrange(3)}.example.com/a"])
            for url in links
        }
        for citation in with_resolved_redirects(reply.citations, targets):
            assert check_citation(citation, reply.content, provider=api.vendor) == []
    assert extract_vertex_grounding(body, api=api).sources_seen == reply.grounding.sources_seen


# The shared mutator's huge strings make a case dearer: allow a loaded machine its time.
@pytest.mark.timeout(600)
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
@settings(FUZZ, max_examples=50_000)
@given(SEEDS)
def test_many_more_bodies(seed: int) -> None:
    """Both generators, ten times as many replies (run with --runslow)."""
    rng = random.Random(seed)
    _check(rng, mutated_body(rng) if rng.random() < 0.5 else assembled_body(rng))


@settings(FUZZ, max_examples=1_000)
@given(SEEDS)
def test_replies_read_as_the_gemini_api(seed: int) -> None:
    """Read as the Gemini API, both kinds of reply never raise; citations name gemini."""
    rng = random.Random(seed)
    _check(rng, mutated_body(rng) if rng.random() < 0.5 else assembled_body(rng), GEMINI)


@pytest.mark.slow
@pytest.mark.timeout(1_800)
@settings(FUZZ, max_examples=10_000)
@given(SEEDS)
def test_many_more_replies_read_as_the_gemini_api(seed: int) -> None:
    """10,000 replies read as the Gemini API (run with --runslow)."""
    rng = random.Random(seed)
    _check(rng, mutated_body(rng) if rng.random() < 0.5 else assembled_body(rng), GEMINI)
