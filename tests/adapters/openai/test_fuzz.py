"""10,000 random and mutated replies never make the extractor raise; its citations stay valid.

Mutations start from the recorded bodies: a field dropped, a value swapped for another type, a
string replaced by a hostile or huge one, a list emptied or multiplied, a number (an offset)
pushed out of range (``support.mutations``, the end-to-end fuzz's mutator, driven here by
hypothesis' seeds).
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
from support.mutations import HOSTILE_STRINGS, Corpus, mutated_case
from support.openai import OPENAI_FILES, citation_problems
from support.recorded import load_final_body

CORPUS = Corpus(
    names=[path.name for path in OPENAI_FILES],
    bodies=[json.dumps(load_final_body(path)) for path in OPENAI_FILES],
)
WORDS = [
    "output", "choices", "message", "type", "role", "phase", "content", "text", "annotations",
    "url_citation", "url", "title", "start_index", "end_index", "web_search_call", "status",
    "action", "query", "queries", "sources", "results", "name", "api", "snippet", "refusal",
    "output_text", "search", "open_page", "find_in_page",
]  # fmt: skip


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


def _mutated_case(seed: int) -> None:
    _check(json.loads(mutated_case(CORPUS, f"openai-fuzz:{seed}").body))


# Each example checks a batch of replies: hypothesis' own cost per example is larger than the
# extraction's, and the count that matters is replies checked.
MUTATED_PER_EXAMPLE = 8
RANDOM_PER_EXAMPLE = 4
_mutated_batches = st.lists(
    st.integers(0, 2**32), min_size=MUTATED_PER_EXAMPLE, max_size=MUTATED_PER_EXAMPLE
)
_random_batches = st.lists(
    _random_replies, min_size=RANDOM_PER_EXAMPLE, max_size=RANDOM_PER_EXAMPLE
)


# The shared mutator's huge strings make a case dearer: allow a loaded machine its time.
@pytest.mark.timeout(600)
@_fuzz_settings(8_000 // MUTATED_PER_EXAMPLE)
@given(_mutated_batches)
def test_mutated_recorded_bodies(batch: list[int]) -> None:
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
    batch: list[int],
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
