"""10,000 random and mutated replies never make the extractor raise; its citations stay valid.

Mutations start from the recorded bodies: a field dropped, a value swapped for another type, a
string replaced by a hostile one, a list emptied or multiplied, an offset pushed out of range.
Random replies are JSON trees built from the words of OpenAI replies. ``--runslow`` runs ten
times as many of each.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.openai_compatible.citations import read_openai_reply
from support.openai import OPENAI_FILES, citation_problems
from support.recorded import load_final_body

BODY_TEXTS = [json.dumps(load_final_body(path)) for path in OPENAI_FILES]
HOSTILE_STRINGS = [
    "",
    " ",
    "javascript:alert(1)",
    "https://",
    "http://[::1",
    "https://exa mple.com/a b",
    "ftp://example.com/file",
    "https://www.example.com/?utm_source=openai",
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ",
    "https://例え.jp/パス?q=ü",
    "https://user:pw@example.com:8443/x#:~:text=y",
    "\ue200cite\ue202turn0search0\ue201",
    "Paris \ue200cite\ue202turn0sea",
    "\x00\x1f\u200b",
    "\udc80",
    "a" * 3000,
    "url_citation",
    "web_search_call",
    "message",
    "output_text",
    "final_answer",
    "commentary",
]
ODD_VALUES: list[Any] = [
    None,
    0,
    -1,
    10**12,
    True,
    1.5,
    float("nan"),
    "",
    [],
    {},
    [None],
    {"type": "url_citation"},
]
KINDS = ("drop", "swap", "string", "empty", "multiply", "offset")
WORDS = [
    "output", "choices", "message", "type", "role", "phase", "content", "text", "annotations",
    "url_citation", "url", "title", "start_index", "end_index", "web_search_call", "status",
    "action", "query", "queries", "sources", "results", "name", "api", "snippet", "refusal",
    "output_text", "search", "open_page", "find_in_page",
]  # fmt: skip


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


PATHS = [_paths(json.loads(text))[1:] for text in BODY_TEXTS]


def _mutate(body: Any, path: tuple[Any, ...], kind: str, number: int) -> None:
    parent = body
    try:
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        current = parent[key]
    except (KeyError, IndexError, TypeError):
        return  # an earlier mutation removed the way there
    if not isinstance(parent, dict | list):
        return  # an earlier mutation turned the container into a string
    if kind == "drop":
        del parent[key]
    elif kind == "swap":
        parent[key] = ODD_VALUES[number % len(ODD_VALUES)]
    elif kind == "string":
        parent[key] = HOSTILE_STRINGS[number % len(HOSTILE_STRINGS)]
    elif kind == "empty":
        parent[key] = type(current)() if isinstance(current, list | dict | str) else None
    elif kind == "multiply" and isinstance(current, list):
        parent[key] = current * (2 + number % 3)
    elif kind == "offset":
        parent[key] = (-1, 0, 1, 10**9, number)[number % 5]


_mutations = st.lists(
    st.tuples(st.integers(0, 2**32), st.sampled_from(KINDS), st.integers(0, 2**16)),
    min_size=1,
    max_size=6,
)
_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5000),
    st.floats(allow_nan=True),
    st.sampled_from(HOSTILE_STRINGS + WORDS),
    st.text(max_size=12),
)
_trees = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(WORDS), children, max_size=6),
    ),
    max_leaves=30,
)
_random_replies = st.one_of(
    st.builds(lambda items: {"output": items}, st.lists(_trees, max_size=5)),
    st.builds(lambda items: {"choices": items}, st.lists(_trees, max_size=3)),
    _trees,
)


def _check(reply: Any) -> None:
    extraction = read_openai_reply(reply)
    for citation in extraction.citations:
        assert citation_problems(citation, extraction.content) == []
    assert [c["rank"] for c in extraction.citations] == list(
        range(1, len(extraction.citations) + 1)
    )
    json.dumps(extraction.citations, allow_nan=False)
    warning = extraction.grounding.warning
    assert warning is None or warning.startswith("[CITATIONS] OpenAI: ")


def _fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _mutated_case(choice: tuple[int, list[tuple[int, str, int]]]) -> None:
    index, mutations = choice
    body = json.loads(BODY_TEXTS[index])
    paths = PATHS[index]
    for seed, kind, number in mutations:
        _mutate(body, paths[seed % len(paths)], kind, number)
    _check(body)


_mutated_choices = st.tuples(st.integers(0, len(BODY_TEXTS) - 1), _mutations)
# Each example checks a batch of replies: hypothesis' own cost per example is larger than the
# extraction's, and the count that matters is replies checked.
MUTATED_PER_EXAMPLE = 8
RANDOM_PER_EXAMPLE = 4
_mutated_batches = st.lists(
    _mutated_choices, min_size=MUTATED_PER_EXAMPLE, max_size=MUTATED_PER_EXAMPLE
)
_random_batches = st.lists(
    _random_replies, min_size=RANDOM_PER_EXAMPLE, max_size=RANDOM_PER_EXAMPLE
)


@_fuzz_settings(8_000 // MUTATED_PER_EXAMPLE)
@given(_mutated_batches)
def test_mutated_recorded_bodies(batch: list[tuple[int, list[tuple[int, str, int]]]]) -> None:
    """8,000 mutations of the recorded bodies: no exception, every citation valid."""
    for choice in batch:
        _mutated_case(choice)


@_fuzz_settings(2_000 // RANDOM_PER_EXAMPLE)
@given(_random_batches)
def test_random_replies(batch: list[Any]) -> None:
    """2,000 random JSON trees in the words of OpenAI replies: no exception, valid citations."""
    for reply in batch:
        _check(reply)


@pytest.mark.slow
@_fuzz_settings(80_000 // MUTATED_PER_EXAMPLE)
@given(_mutated_batches)
def test_mutated_recorded_bodies_long_run(
    batch: list[tuple[int, list[tuple[int, str, int]]]],
) -> None:
    """The long run (--runslow): 80,000 mutations."""
    for choice in batch:
        _mutated_case(choice)


@pytest.mark.slow
@_fuzz_settings(20_000 // RANDOM_PER_EXAMPLE)
@given(_random_batches)
def test_random_replies_long_run(batch: list[Any]) -> None:
    """The long run (--runslow): 20,000 random trees."""
    for reply in batch:
        _check(reply)
