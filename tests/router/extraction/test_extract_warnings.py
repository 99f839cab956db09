"""extract() never raises on a reply, and never returns an empty result without saying why."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router import extract
from support.recorded import load_events, recorded_files

GEMINI_SSE = recorded_files("pydantic-ai/gemini25pro_weather_grounding_stream.sse.txt")[0]


def _warnings(reply: object, vendor: str = "openai") -> list[str]:
    response = extract(vendor, reply)
    warnings: list[str] = response.metadata["warnings"]
    return warnings


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("", "the reply is empty"),
        ("   \n", "the reply is empty"),
        ("Service Unavailable", "neither JSON nor an SSE stream"),
        ('{"output": [', "not valid JSON"),
        ("42", "neither JSON nor an SSE stream"),
        ("[1, 2]", "not JSON objects"),
        ('"text"', "neither JSON nor an SSE stream"),
        ("null", "neither JSON nor an SSE stream"),
        (b"\xff\xfe{}", "not valid UTF-8"),
        (3.5, "cannot read a float"),
        (None, "cannot read a NoneType"),
        ({}, "nothing could be read"),
        ([], "nothing could be read"),
        ("data: not json\n\n", "not JSON"),
    ],
    ids=repr,
)
def test_an_unreadable_reply_says_what_it_saw(reply: Any, said: str) -> None:
    """The warnings say what the reply was and that nothing could be read from it."""
    warnings = _warnings(reply)
    assert any(said in warning for warning in warnings), warnings
    assert any("nothing could be read" in warning for warning in warnings)


def test_another_providers_stream_is_not_silently_empty() -> None:
    """A Gemini stream given as OpenAI's yields no answer, and says it was an SSE stream."""
    warnings = _warnings(GEMINI_SSE.read_text(encoding="utf-8"), "openai")
    assert any("an SSE stream of 10 events" in warning for warning in warnings)


def test_a_stream_cut_short_says_so() -> None:
    """A stream without its last event gives what arrived and warns that it was cut."""
    chunks = load_events(GEMINI_SSE)[:-1]
    response = extract("vertex", chunks)
    assert response.content
    assert any("ended before its last event" in w for w in response.metadata["warnings"])


def test_a_broken_iterator_gives_what_came_before() -> None:
    """An iterable that raises mid-way is read up to there, with a warning naming the error."""
    chunks = load_events(GEMINI_SSE)

    def broken() -> Any:
        yield from chunks[:4]
        raise ConnectionError("reset by peer")

    response = extract("vertex", broken())
    assert response.content
    assert any("reset by peer" in w for w in response.metadata["warnings"])


def test_a_deeply_nested_reply_does_not_raise() -> None:
    """JSON nested deeper than the parser goes is a warning, not an exception."""
    assert _warnings("[" * 100_000 + "]" * 100_000)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["output", "candidates", "type", "choices", "content", "text", "delta"])
            | st.text(max_size=8),
            inner,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@given(value=JSON_VALUES, vendor=st.sampled_from(["openai", "vertex"]))
def test_any_json_value_is_read_without_raising(value: Any, vendor: str) -> None:
    """Whatever JSON a reply holds, as a value or as text, extract returns a response."""
    extract(vendor, value)
    extract(vendor, json.dumps(value))


@given(text=st.text(max_size=300), vendor=st.sampled_from(["openai", "vertex"]))
def test_any_text_is_read_without_raising(text: str, vendor: str) -> None:
    """Any text, SSE-like or not, gives a response; an empty result always has a warning."""
    response = extract(vendor, "data: " + text)
    if not response.content and not response.citations:
        assert response.metadata["warnings"]


@pytest.mark.parametrize("vendor", ["openai", "vertex"])
def test_the_low_level_extractors_warn_about_text(vendor: str) -> None:
    """Given a stored text, the provider extractors find nothing and say to use extract()."""
    from adapters.openai.adapter import _extract_openai_citations
    from adapters.vertex.adapter import _extract_vertex_citations
    from support.logs import capture_logs

    extractor = _extract_openai_citations if vendor == "openai" else _extract_vertex_citations
    with capture_logs() as events:
        assert extractor(GEMINI_SSE.read_text(encoding="utf-8")) == []
    (event,) = [e for e in events if e["event"] == "reply_is_text"]
    assert event["log_level"] == "warning"
    assert "router.extract" in event["hint"]
