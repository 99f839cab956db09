"""Malformed OpenRouter replies never make the mapper raise, and what it returns is valid.

The recorded chat completions (OpenRouter's, and OpenAI's search-preview one of the same shape)
mutated, and chat completions assembled with random annotations (offsets in and out of range,
nested or flat, page text, empty titles), run through the "openrouter" row's mapper: lenient,
every citation satisfying the schema and naming "openrouter"; strict, raising only
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

from adapters.openrouter.reply import map_openrouter_reply
from router.errors import ResponseParseError
from router.types import LLMRequest
from support.citations import citation_problems
from support.mutations import Corpus, mutated_case
from support.recorded import files_for_vendor, load_final_body

CORPUS = Corpus(
    names=[path.name for path in files_for_vendor("openrouter")],
    bodies=[json.dumps(load_final_body(path)) for path in files_for_vendor("openrouter")],
)
REQUEST = LLMRequest.model_validate(
    {"vendor": "openrouter", "model": "m", "messages": [{"role": "user", "content": "q"}]}
)
URLS = ["https://github.com/pydantic/pydantic-ai", "https://pydantic.dev/", "javascript:x", "", "x"]
TEXTS = ["", " ", "Café — 21°C", "\ud800", "a\x00b", "x" * 400, "([a.com](https://a.com))"]
FUZZ = settings(
    max_examples=500,  # per test: 1,000 replies in all
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)


def _text(rng: random.Random) -> str:
    return rng.choice(URLS + TEXTS) if rng.random() < 0.6 else "abc [x](y) " * rng.randrange(5)


def _value(rng: random.Random, depth: int = 0) -> Any:
    if depth >= 3 or rng.random() < 0.6:
        return rng.choice([None, True, 0, -3, 2**70, 1.5, float("nan"), _text(rng)])
    if rng.random() < 0.5:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    keys = ["url", "title", "content", "start_index", "end_index", "type", "url_citation"]
    return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}


def _annotation(rng: random.Random, size: int) -> Any:
    start = rng.randrange(-2, size + 3)
    fields = {
        "url": rng.choice(URLS),
        "title": rng.choice(["", _text(rng)]),
        "content": _text(rng),
        "start_index": rng.choice([0, start]),
        "end_index": rng.choice([0, start + rng.randrange(0, 20)]),
    }
    if rng.random() < 0.15:
        return _value(rng)
    if rng.random() < 0.3:
        return {"type": "url_citation", **fields}
    return {"type": "url_citation", "url_citation": fields}


def assembled_body(rng: random.Random) -> dict[str, Any]:
    content = _text(rng) + _text(rng)
    annotations = [_annotation(rng, len(content)) for _ in range(rng.randrange(0, 6))]
    message: Any = {"role": "assistant", "content": content, "annotations": annotations}
    if rng.random() < 0.1:
        message = _value(rng)
    return {"object": "chat.completion", "choices": [{"message": message}], "usage": _value(rng)}


def mutated_body(rng: random.Random) -> dict[str, Any]:
    """A recorded body mutated one to six times by the shared mutator (``support.mutations``)."""
    body: dict[str, Any] = json.loads(
        mutated_case(CORPUS, f"openrouter-fuzz:{rng.getrandbits(64)}").body
    )
    return body


def _check(body: dict[str, Any]) -> None:
    result = map_openrouter_reply(body, REQUEST, strict=False)
    for citation in result.citations:
        assert citation_problems(citation, result.content, provider="openrouter") == []
    with contextlib.suppress(ResponseParseError):
        map_openrouter_reply(body, REQUEST)


@FUZZ
@given(SEEDS)
def test_mutated_recorded_bodies(seed: int) -> None:
    """Mutated recorded chat completions never raise; every citation satisfies the schema."""
    _check(mutated_body(random.Random(seed)))


@FUZZ
@given(SEEDS)
def test_assembled_random_bodies(seed: int) -> None:
    """Chat completions with random annotations never raise; citations are valid."""
    _check(assembled_body(random.Random(seed)))


@pytest.mark.slow
@pytest.mark.timeout(1_800)
@settings(FUZZ, max_examples=10_000)
@given(SEEDS)
def test_ten_thousand_replies(seed: int) -> None:
    """Both generators, 10,000 replies (run with --runslow)."""
    rng = random.Random(seed)
    _check(mutated_body(rng) if rng.random() < 0.5 else assembled_body(rng))
