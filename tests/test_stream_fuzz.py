"""Recorded streams split and mutated at random: readers never raise, splits change nothing.

Two kinds of split: the SSE text cut into network pieces at random places (decoded with
``router.streaming.sse.SSEDecoder``), and the provider's own chunking redone (an OpenAI text
delta cut in two, a Gemini chunk's text spread over two chunks). Whatever the split, the result
of a valid stream is the same: content, citations, queries and tool calls. Mutated chunks (keys
dropped, values of the wrong type, chunks dropped, repeated or swapped) never make a reader
raise, and the events they give still keep every span within the delivered text.

Default runs keep the example counts small; ``--runslow`` runs 5,000 examples of each.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from router import extract
from router.streaming.sse import SSEDecoder
from support.recorded import load_events
from support.streams import read_stream, stream_cases

CASES = stream_cases()
EVENTS = {path: load_events(path) for path, _ in CASES}
SSE_CASES = [(path, vendor) for path, vendor in CASES if path.name.endswith(".sse.txt")]
TEXTS = {path: path.read_text(encoding="utf-8") for path, _ in SSE_CASES}
FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=5_000, deadline=None, suppress_health_check=list(HealthCheck))
ODD_VALUES: list[Any] = [None, 0, -1, 2**70, 1.5, True, "", "\ue200", "x" * 5000, [], {}, [None]]


def _outcome(vendor: str, chunks: list[Any]) -> tuple[Any, ...]:
    read = read_stream(vendor, chunks)
    result = read.result
    return (
        read.text,
        result.content,
        result.citations,
        result.web_search_queries,
        result.tool_call_count,
        read.latest_citations(),
    )


EXPECTED = {(path, vendor): _outcome(vendor, EVENTS[path]) for path, vendor in CASES}


def _split_sse(text: str, fractions: list[float]) -> list[Any]:
    decoder = SSEDecoder()
    events = []
    start = 0
    cuts = {int(fraction * len(text)) for fraction in fractions}
    for cut in [*sorted(cuts), len(text)]:
        events.extend(decoder.feed(text[start:cut]))
        start = cut
    events.extend(decoder.close())
    return [json.loads(event.data) for event in events if event.data.strip() != "[DONE]"]


def _rechunk(events: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """The same stream as the provider might have chunked it instead."""
    out: list[dict[str, Any]] = []
    for event in events:
        delta = event.get("delta")
        candidates = event.get("candidates")
        if event.get("type") == "response.output_text.delta" and isinstance(delta, str):
            if len(delta) > 1 and rng.random() < 0.5:
                cut = rng.randrange(1, len(delta))
                out.append({**event, "delta": delta[:cut]})
                out.append({**event, "delta": delta[cut:]})
                continue
        elif isinstance(candidates, list) and candidates:
            parts = candidates[0].get("content", {}).get("parts", [])
            text = parts[0].get("text") if len(parts) == 1 else None
            if isinstance(text, str) and len(text) > 1 and rng.random() < 0.5:
                cut = rng.randrange(1, len(text))
                head = {
                    "candidates": [{"content": {"role": "model", "parts": [{"text": text[:cut]}]}}]
                }
                tail = copy.deepcopy(event)
                tail["candidates"][0]["content"]["parts"][0]["text"] = text[cut:]
                out.extend([head, tail])
                continue
        out.append(event)
    return out


def _mutate(events: list[dict[str, Any]], rng: random.Random, times: int) -> list[Any]:
    mutated: list[Any] = copy.deepcopy(events)
    for _ in range(times):
        if not mutated:
            break
        at = rng.randrange(len(mutated))
        kind = rng.choice(["drop_key", "odd_value", "drop", "repeat", "swap", "not_a_dict"])
        target = mutated[at]
        if kind == "drop":
            del mutated[at]
        elif kind == "repeat":
            mutated.insert(at, copy.deepcopy(target))
        elif kind == "swap":
            other = rng.randrange(len(mutated))
            mutated[at], mutated[other] = mutated[other], mutated[at]
        elif kind == "not_a_dict":
            mutated[at] = rng.choice(ODD_VALUES)
        elif isinstance(target, dict):
            holder = _some_dict(target, rng)
            if holder:
                key = rng.choice(sorted(holder, key=str))
                if kind == "drop_key":
                    del holder[key]
                else:
                    holder[key] = copy.deepcopy(rng.choice(ODD_VALUES))
    return mutated


def _some_dict(value: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A dict somewhere inside ``value`` (``value`` itself, or one nested in it)."""
    found = [value]
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        for child in children:
            if isinstance(child, dict):
                found.append(child)
            if isinstance(child, dict | list):
                stack.append(child)
    return rng.choice(found)


def _check_split(case: tuple[Path, str], fractions: list[float]) -> None:
    path, vendor = case
    assert _outcome(vendor, _split_sse(TEXTS[path], fractions)) == EXPECTED[case]


def _check_rechunk(case: tuple[Path, str], seed: int) -> None:
    path, vendor = case
    assert _outcome(vendor, _rechunk(EVENTS[path], random.Random(seed))) == EXPECTED[case]


def _check_mutation(case: tuple[Path, str], seed: int, times: int) -> None:
    path, vendor = case
    chunks = _mutate(EVENTS[path], random.Random(seed), times)
    read = read_stream(vendor, chunks)  # never raises
    for span, delivered in read.spans_with_text():
        assert span["end"] <= len(delivered)
    extract(vendor, chunks)


# Cut points as fractions of the text, so every cut falls inside whichever text is drawn.
SPLIT = st.tuples(st.sampled_from(SSE_CASES), st.lists(st.floats(0, 1), max_size=60))
RECHUNK = st.tuples(st.sampled_from(CASES), st.integers(0, 2**32))
MUTATION = st.tuples(st.sampled_from(CASES), st.integers(0, 2**32), st.integers(1, 6))


@FAST
@given(drawn=SPLIT)
def test_sse_text_split_anywhere_reads_the_same(
    drawn: tuple[tuple[Path, str], list[float]],
) -> None:
    """However the network cuts an SSE text, the stream reads to the same result."""
    _check_split(*drawn)


@FAST
@given(drawn=RECHUNK)
def test_provider_chunking_does_not_change_the_result(drawn: tuple[tuple[Path, str], int]) -> None:
    """Text deltas cut differently by the provider give the same text, citations and searches."""
    _check_rechunk(*drawn)


@FAST
@given(drawn=MUTATION)
def test_mutated_chunks_never_make_a_reader_raise(drawn: tuple[tuple[Path, str], int, int]) -> None:
    """Dropped keys, odd values and dropped, repeated or swapped chunks: no exception."""
    _check_mutation(*drawn)


@pytest.mark.slow
@SLOW
@given(drawn=SPLIT)
def test_5000_sse_splits_read_the_same(drawn: tuple[tuple[Path, str], list[float]]) -> None:
    """5,000 random SSE splits of the recorded streams, each reading to the same result."""
    _check_split(*drawn)


@pytest.mark.slow
@SLOW
@given(drawn=RECHUNK)
def test_5000_rechunkings_read_the_same(drawn: tuple[tuple[Path, str], int]) -> None:
    """5,000 random provider re-chunkings of the recorded streams, each with the same result."""
    _check_rechunk(*drawn)


@pytest.mark.slow
@SLOW
@given(drawn=MUTATION)
def test_5000_mutations_never_raise(drawn: tuple[tuple[Path, str], int, int]) -> None:
    """5,000 mutated recorded streams, none making a reader or extract raise."""
    _check_mutation(*drawn)
