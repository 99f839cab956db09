"""Random and mutated Anthropic replies never make the extractor raise; citations stay valid.

Mutated replies start from the eight recorded bodies (streams as their final message): fields
dropped, values swapped for other types, strings replaced by hostile or huge ones, lists emptied
or multiplied, numbers pushed out of range (``support.mutations``, the end-to-end fuzz's
mutator, driven here by hypothesis' seeds). Random replies are JSON trees in the words of
Messages replies. By default 1,200 replies are checked; ``--runslow`` checks 10,000 (8,000
mutated, 2,000 random).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.anthropic.citations import read_anthropic_reply
from adapters.anthropic.reply import map_message
from router.errors import ResponseParseError
from support.anthropic import ANTHROPIC_FILES
from support.citations import citation_problems
from support.mutations import HOSTILE_STRINGS, Corpus, mutated_case
from support.recorded import load_final_body

CORPUS = Corpus(
    names=[path.name for path in ANTHROPIC_FILES],
    bodies=[json.dumps(load_final_body(path)) for path in ANTHROPIC_FILES],
)
WORDS = [
    "type", "content", "text", "citations", "server_tool_use", "web_search", "name", "input",
    "query", "web_search_tool_result", "web_search_result", "web_search_tool_result_error",
    "error_code", "url", "title", "cited_text", "encrypted_index", "page_age", "tool_use_id",
    "web_search_result_location", "char_location", "page_location", "content_block_location",
    "search_result_location", "document_index", "document_title", "start_char_index",
    "end_char_index", "start_page_number", "end_page_number", "start_block_index",
    "end_block_index", "search_result_index", "source", "stop_reason", "usage",
]  # fmt: skip
MUTATED_PER_EXAMPLE = 8
RANDOM_PER_EXAMPLE = 4


def _check(reply: Any) -> None:
    extraction = read_anthropic_reply(reply)
    for citation in extraction.citations:
        assert citation_problems(citation, extraction.content, provider="anthropic") == []
    assert [c["rank"] for c in extraction.citations] == list(
        range(1, len(extraction.citations) + 1)
    )
    json.dumps(extraction.citations, allow_nan=False)
    for warning in extraction.grounding.warnings:
        assert warning.startswith("[CITATIONS] Anthropic: ")
    with contextlib.suppress(ResponseParseError):  # no answer text: the one refusal allowed
        map_message(reply, wants_json=False)


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
    st.builds(lambda blocks: {"type": "message", "content": blocks}, st.lists(_trees, max_size=6)),
    _trees,
)
_mutated_batches = st.lists(
    st.integers(0, 2**32), min_size=MUTATED_PER_EXAMPLE, max_size=MUTATED_PER_EXAMPLE
)
_random_batches = st.lists(
    _random_replies, min_size=RANDOM_PER_EXAMPLE, max_size=RANDOM_PER_EXAMPLE
)


def _fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _mutated(seeds: list[int]) -> None:
    for seed in seeds:
        _check(json.loads(mutated_case(CORPUS, f"anthropic-fuzz:{seed}").body))


@_fuzz_settings(800 // MUTATED_PER_EXAMPLE)
@given(_mutated_batches)
def test_mutated_recorded_bodies(seeds: list[int]) -> None:
    """800 mutations of the recorded bodies: no exception, every citation valid."""
    _mutated(seeds)


@_fuzz_settings(400 // RANDOM_PER_EXAMPLE)
@given(_random_batches)
def test_random_replies(batch: list[Any]) -> None:
    """400 random JSON trees in the words of Messages replies: no exception, valid citations."""
    for reply in batch:
        _check(reply)


@pytest.mark.slow
@pytest.mark.timeout(3_000)
@_fuzz_settings(8_000 // MUTATED_PER_EXAMPLE)
@given(_mutated_batches)
def test_mutated_recorded_bodies_long_run(seeds: list[int]) -> None:
    """The long run (--runslow): 8,000 mutations."""
    _mutated(seeds)


@pytest.mark.slow
@pytest.mark.timeout(3_000)
@_fuzz_settings(2_000 // RANDOM_PER_EXAMPLE)
@given(_random_batches)
def test_random_replies_long_run(batch: list[Any]) -> None:
    """The long run (--runslow): 2,000 random trees."""
    for reply in batch:
        _check(reply)
