"""Events after a stream's last event are ignored, and said, for every vendor's reader.

Each recorded stream gets one more event after its end that carries answer text. The text
streamed and the final answer must both stay what the stream said before it ended, and the
result must say that an event was ignored.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from router.streaming.events import TextDelta
from support.recorded import RECORDED_DIR, load_events
from support.streams import read_stream

INJECTED = " INJECTED AFTER THE END"


def _anthropic(events: list[dict[str, Any]]) -> dict[str, Any]:
    (index, *_) = [
        event["index"]
        for event in reversed(events)
        if event.get("type") == "content_block_start" and event["content_block"]["type"] == "text"
    ]
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "text_delta", "text": INJECTED},
    }


def _responses(events: list[dict[str, Any]]) -> dict[str, Any]:
    (last, *_) = [e for e in reversed(events) if e.get("type") == "response.output_text.delta"]
    return {**last, "delta": INJECTED, "sequence_number": 10_000}


def _google(events: list[dict[str, Any]]) -> dict[str, Any]:
    chunk = copy.deepcopy(events[-1])
    chunk["candidates"][0]["content"]["parts"] = [{"text": INJECTED}]
    return chunk


def _chat(events: list[dict[str, Any]]) -> dict[str, Any]:
    chunk = copy.deepcopy(events[0])
    chunk["choices"][0]["delta"] = {"role": "assistant", "content": INJECTED}
    return chunk


PERPLEXITY = RECORDED_DIR / "ruby_llm" / "perplexity_sonar_stream.sse.txt"
CASES = [
    ("anthropic", RECORDED_DIR / "pydantic-ai" / "anthropic_web_search_stream.sse.txt", _anthropic),
    ("anthropic", RECORDED_DIR / "prism" / "anthropic_web_search_stream.sse.txt", _anthropic),
    ("openai", RECORDED_DIR / "mirascope" / "openai_responses_gpt4o_stream.sse.txt", _responses),
    ("gemini", RECORDED_DIR / "prism" / "gemini_stream_grounding_empty_then_full.sse.txt", _google),
    (
        "vertex",
        RECORDED_DIR / "pydantic-ai" / "vertex_gemini25flash_stream_web_domain.sse.txt",
        _google,
    ),
    ("perplexity", PERPLEXITY, _chat),
    ("openrouter", PERPLEXITY, _chat),
    ("openai", PERPLEXITY, _chat),
]


@pytest.mark.parametrize(
    ("vendor", "path", "after"), CASES, ids=[f"{v}-{p.name}" for v, p, _ in CASES]
)
def test_text_after_the_end_is_neither_streamed_nor_answered(
    vendor: str, path: Path, after: Any
) -> None:
    """The streamed text and the final answer are what came before the end; a warning says so."""
    events = load_events(path)
    clean = read_stream(vendor, events)
    assert clean.complete
    read = read_stream(vendor, [*events, after(events)])
    streamed = "".join(e.text for e in read.events if isinstance(e, TextDelta))
    assert INJECTED not in streamed
    assert streamed == clean.text
    assert read.result.content == clean.result.content
    assert read.result.citations == clean.result.citations
    ignored = [w for w in read.result.warnings if "after the stream's last event" in w]
    assert len(ignored) == 1
    assert "1 events" in ignored[0]


def test_a_usage_trailer_after_the_end_is_still_read() -> None:
    """A chat stream's usage chunk after the finish reason updates the usage, with no warning."""
    events = load_events(PERPLEXITY)
    trailer = {"object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": 8}}
    trailer["usage"] = {"prompt_tokens": 8, "completion_tokens": 99, "total_tokens": 107}
    read = read_stream("perplexity", [*events, trailer])
    assert read.result.usage.output_tokens == 99
    assert not [w for w in read.result.warnings if "after the stream's last event" in w]
