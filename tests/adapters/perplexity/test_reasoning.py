"""A Sonar reasoning model's ``<think>`` block is taken off its answer, whole or streamed."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from adapters.perplexity.reasoning import ThinkFilter, split_reasoning

THOUGHT = "<think>\nSources [1] and [2] agree.\n</think>\n\n"


def test_the_think_block_is_split_from_the_answer() -> None:
    """The block's text is the reasoning; the answer starts after it and its whitespace."""
    assert split_reasoning(THOUGHT + "Paris [1].") == ("Sources [1] and [2] agree.", "Paris [1].")


def test_text_without_a_think_block_is_all_answer() -> None:
    """No leading block: no reasoning, the text as it is (a later <think> is answer text)."""
    assert split_reasoning("  Paris. <think>x</think>") == (None, "  Paris. <think>x</think>")


def test_a_block_that_never_closes_leaves_no_answer() -> None:
    """A reply cut off while reasoning has reasoning and an empty answer."""
    assert split_reasoning("<think>Still thinking") == ("Still thinking", "")


def _streamed(text: str, cuts: list[int]) -> str:
    think = ThinkFilter()
    bounds = [0, *sorted(min(cut, len(text)) for cut in cuts), len(text)]
    shown = "".join(think.feed(text[a:b]) for a, b in itertools.pairwise(bounds))
    return shown + think.flush()


@given(
    answer=st.text(max_size=40),
    thought=st.booleans(),
    lead=st.sampled_from(["", " ", "\n"]),
    cuts=st.lists(st.integers(min_value=0, max_value=80), max_size=8),
)
def test_streamed_pieces_add_up_to_the_answer(
    answer: str, thought: bool, lead: str, cuts: list[int]
) -> None:
    """However the text is cut into pieces, the pieces let through (and what the stream's end
    flushes) are the answer split off."""
    text = lead + (THOUGHT if thought else "") + answer
    assert _streamed(text, cuts) == split_reasoning(text)[1]
