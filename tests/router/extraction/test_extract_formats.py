"""extract() tells a reply's form apart and reads each form to the same response."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router import LLMResponse, extract
from router.errors import RequestValidationError
from support.openai import sdk_object
from support.recorded import load_events, load_final_body, recorded_files

OPENAI_STREAM = recorded_files("vercel-ai/openai_responses_gpt5mini_stream.chunks.jsonl")[0]
OPENAI_SSE = recorded_files("mirascope/openai_responses_gpt4o_stream.sse.txt")[0]
GEMINI_SSE = recorded_files("pydantic-ai/gemini25pro_weather_grounding_stream.sse.txt")[0]
VERTEX_BODY = recorded_files("ruby_llm/vertex_gemini25flash_ruby_version_web_domain.json")[0]
OPENAI_BODY = recorded_files("mirascope/openai_responses_gpt4o_12_citations_duplicates.json")[0]


def _same(first: LLMResponse, second: LLMResponse) -> None:
    assert first.content == second.content
    assert first.citations == second.citations
    assert first.web_search_queries == second.web_search_queries
    assert first.tool_call_count == second.tool_call_count


def test_a_gemini_sse_text_is_read() -> None:
    """A Gemini SSE text (CRLF frames) gives its answer and citations, not an empty result."""
    response = extract("vertex", GEMINI_SSE.read_text(encoding="utf-8"))
    assert response.content.startswith("### Weather in San Francisco")
    assert len(response.citations) == 5
    assert response.grounded_effective
    assert response.metadata["warnings"] == []


def test_an_sse_text_reads_as_its_final_body() -> None:
    """The SSE text, its events as a list, and its final body give the same response."""
    text = GEMINI_SSE.read_text(encoding="utf-8")
    from_text = extract("vertex", text)
    _same(from_text, extract("vertex", load_events(GEMINI_SSE)))
    _same(from_text, extract("vertex", load_final_body(GEMINI_SSE)))


@pytest.mark.parametrize(
    "form",
    ["dict", "json text", "json bytes", "sdk object"],
)
def test_a_final_body_reads_the_same_in_every_form(form: str) -> None:
    """A dict, its JSON text or bytes, and the SDK object give the same response."""
    body = load_final_body(OPENAI_BODY)
    reply: Any = {
        "dict": body,
        "json text": json.dumps(body),
        "json bytes": json.dumps(body).encode(),
        "sdk object": sdk_object(body),
    }[form]
    _same(extract("openai", reply), extract("openai", body))


def test_a_vertex_sdk_response_is_read() -> None:
    """A google-genai GenerateContentResponse reads like the REST body it came from."""
    from google.genai import types

    body = load_final_body(VERTEX_BODY)
    response = types.GenerateContentResponse._from_response(response=body, kwargs={})
    _same(extract("vertex", response), extract("vertex", body))


def test_json_lines_are_stream_chunks() -> None:
    """One JSON chunk per line reads as the stream it is."""
    text = OPENAI_STREAM.read_text(encoding="utf-8")
    _same(extract("openai", text), extract("openai", load_final_body(OPENAI_STREAM)))


def test_a_json_array_of_chunks_is_a_stream() -> None:
    """Vertex's streamGenerateContent without alt=sse sends a JSON array of chunks."""
    chunks = load_events(GEMINI_SSE)
    _same(extract("vertex", json.dumps(chunks)), extract("vertex", chunks))


def test_an_iterable_of_sse_lines_is_read() -> None:
    """Lines of an SSE text, as a file iterates them, read as the whole text."""
    with OPENAI_SSE.open(encoding="utf-8") as lines:
        from_lines = extract("openai", lines)
    _same(from_lines, extract("openai", OPENAI_SSE.read_text(encoding="utf-8")))


def test_server_sent_event_objects_are_read() -> None:
    """Objects with a data text (an SDK's server-sent events) are read as chunks."""

    class Event:
        def __init__(self, data: str) -> None:
            self.data = data

    events = [Event(json.dumps(chunk)) for chunk in load_events(OPENAI_SSE)]
    _same(extract("openai", events), extract("openai", load_events(OPENAI_SSE)))


def test_a_generator_of_chunks_is_read() -> None:
    """A one-shot iterator (a live stream being logged) is read once, in order."""
    chunks = load_events(OPENAI_SSE)
    _same(extract("openai", iter(chunks)), extract("openai", chunks))


def test_a_lone_stream_event_is_a_stream() -> None:
    """A single Responses event is read as a stream of one, which says it is incomplete."""
    (event,) = [e for e in load_events(OPENAI_SSE) if e["type"] == "response.output_text.delta"][:1]
    response = extract("openai", event)
    assert any("ended before its last event" in w for w in response.metadata["warnings"])


def test_extract_sets_no_latency_and_no_attempts() -> None:
    """An offline response has no timing and no attempts, and names the reply's model."""
    response = extract("openai", load_final_body(OPENAI_BODY))
    assert (response.latency_ms, response.attempts) == (0.0, 0)
    assert response.model == "gpt-4o-2024-08-06"


def test_the_request_decides_json_parsing() -> None:
    """Given a JSON-mode request, the answer is parsed as route() would parse it."""
    body = {"output": [{"type": "message", "content": [{"type": "output_text", "text": "[1]"}]}]}
    request = {
        "vendor": "openai",
        "model": "gpt-5",
        "json_mode": True,
        "messages": [{"role": "user", "content": "q"}],
    }
    assert extract("openai", body, request=request).parsed == [1]
    assert extract("openai", body).parsed is None


def test_an_unknown_vendor_is_a_request_error() -> None:
    """Only the vendor can make extract raise: it says which vendors exist."""
    with pytest.raises(RequestValidationError, match="unknown vendor"):
        extract("nobody", {})


@pytest.mark.parametrize("path", recorded_files(), ids=lambda path: path.name)
def test_every_recorded_file_reads_for_some_vendor(path: Path) -> None:
    """Each recorded reply gives text for the vendor whose format it is, read from raw bytes,
    and a response that validates as it is."""
    if path.name.startswith("gemini_interactions"):
        pytest.skip("the Gemini Interactions API is read by no provider yet")
    body = load_final_body(path)
    if body.get("type") == "message":
        vendor = "anthropic"
    else:
        vendor = "vertex" if "candidates" in json.dumps(body)[:2000] else "openai"
    response = extract(vendor, path.read_bytes())
    assert response.content
    assert LLMResponse.model_validate(response.model_dump()) == response  # assembled valid
