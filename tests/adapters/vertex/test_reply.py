"""From mapped replies to the adapter's result: one call, two steps, unusable replies."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.vertex.citations import read_vertex_reply
from adapters.vertex.reply import json_answer, single_result, sum_usage
from adapters.vertex.two_step import two_step_result
from router.errors import ResponseParseError
from router.types import Usage
from support.recorded import load_final_body, recorded_files


def _grounded_reply() -> Any:
    (path,) = recorded_files("ruby_llm/vertex_gemini25flash_ruby_version_web_domain.json")
    return read_vertex_reply(load_final_body(path))


def _json_reply(text: str, usage: dict[str, int] | None = None) -> Any:
    body: dict[str, Any] = {
        "candidates": [{"content": {"parts": [{"text": text}]}, "finishReason": "STOP"}],
        "modelVersion": "gemini-2.5-flash",
    }
    if usage is not None:
        body["usageMetadata"] = usage
    return read_vertex_reply(body)


def test_single_grounded_result() -> None:
    """One grounded call: its text, citations, queries, widget and counts; not two-step."""
    reply = _grounded_reply()
    result = single_result(reply, wants_json=False)
    assert result.content == reply.content
    assert result.citations == reply.citations
    assert result.grounded_effective is True
    assert result.web_search_queries == ["latest stable version of Ruby", "Ruby release notes"]
    assert result.search_entry_point == reply.grounding.search_entry_point
    assert result.model_version == "gemini-2.5-flash"
    assert result.metadata["two_step"] is False
    assert result.metadata["sources_seen"] == 2
    assert result.usage.input_tokens == reply.usage.input_tokens


def test_two_step_result_carries_step1_grounding() -> None:
    """Step 2's JSON with step 1's citations, queries, widget and grounding, usage summed."""
    step1 = _grounded_reply()
    step2 = _json_reply(
        '{"version": "4.0.6"}',
        {"promptTokenCount": 40, "candidatesTokenCount": 8, "totalTokenCount": 48},
    )
    result = two_step_result(step1, step2)
    assert (result.content, result.parsed) == ('{"version": "4.0.6"}', {"version": "4.0.6"})
    assert result.citations == step1.citations
    assert result.web_search_queries == list(step1.grounding.web_search_queries)
    assert result.search_entry_point == step1.grounding.search_entry_point
    assert result.grounded_effective is True
    assert result.metadata["two_step"] is True
    assert result.attributions == []  # their offsets are into step 1's text, kept there
    assert step1.attributions
    assert result.metadata["step1"] == {
        "content": step1.content,
        "attributions": step1.attributions,
        "usage": step1.usage.model_dump(),
        "response_id": step1.response_id,
    }
    assert result.metadata["response_id"] == step2.response_id
    assert result.usage == sum_usage(step1.usage, step2.usage)
    assert result.usage.input_tokens == (step1.usage.input_tokens or 0) + 40


def test_two_step_spans_point_into_step1_text() -> None:
    """Citation spans of a two-step result are offsets into metadata["step1"]["content"]."""
    result = two_step_result(_grounded_reply(), _json_reply('{"a": 1}'))
    step1_text = result.metadata["step1"]["content"]
    spans = [span for citation in result.citations for span in citation["spans"]]
    assert spans
    for span in spans:
        assert step1_text[span["start"] : span["end"]] == span["text"]


def test_step2_reply_that_is_not_json_is_a_parse_error() -> None:
    """A reshape answer that is not valid JSON raises ResponseParseError(invalid_json)."""
    with pytest.raises(ResponseParseError) as raised:
        two_step_result(_grounded_reply(), _json_reply("Here is the JSON: {"))
    assert raised.value.reason == "invalid_json"
    assert "Here is the JSON" in str(raised.value)


def test_json_answer_error_names_where() -> None:
    """The invalid-JSON message names line, column and how the answer starts."""
    with pytest.raises(ResponseParseError, match=r"line 1 column 9 .*'\{\"a\": 1,'"):
        json_answer('{"a": 1,')


def test_reply_without_text_is_unusable() -> None:
    """A reply with no answer text is a ResponseParseError naming the finish reason."""
    body = {"candidates": [{"content": {"parts": []}, "finishReason": "SAFETY"}]}
    with pytest.raises(ResponseParseError, match="finish reason SAFETY") as raised:
        single_result(read_vertex_reply(body), wants_json=False)
    assert raised.value.reason == "empty_response"


def test_blocked_prompt_is_named() -> None:
    """A prompt blocked before any candidate says so."""
    body = {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}
    with pytest.raises(ResponseParseError, match="prompt blocked: PROHIBITED_CONTENT"):
        single_result(read_vertex_reply(body), wants_json=False)


@pytest.mark.parametrize(
    ("first", "second", "total"),
    [
        (
            Usage(input_tokens=1, output_tokens=2),
            Usage(input_tokens=3),
            Usage(input_tokens=4, output_tokens=2),
        ),
        (Usage(), Usage(), Usage()),
        (
            Usage(input_tokens=5, cached_input_tokens=2, reasoning_tokens=7),
            Usage(input_tokens=1, reasoning_tokens=1),
            Usage(input_tokens=6, cached_input_tokens=2, reasoning_tokens=8),
        ),
    ],
    ids=["partly_reported", "none_reported", "details"],
)
def test_sum_usage(first: Usage, second: Usage, total: Usage) -> None:
    """Counts add up; a count neither call reported stays None."""
    assert sum_usage(first, second) == total


def test_usage_counts_tool_use_as_input_and_thinking_as_output() -> None:
    """Search results fed to the model are input, thinking is output: the parts make the total."""
    (path,) = recorded_files("ruby_llm/vertex_gemini25flash_ruby_version_web_domain.json")
    usage = read_vertex_reply(load_final_body(path)).usage
    # promptTokenCount 9 + toolUsePromptTokenCount 61; candidatesTokenCount 27 + thoughts 221.
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (70, 248, 318)
    assert (usage.reasoning_tokens, usage.cached_input_tokens) == (221, None)


def test_usage_reads_cached_content() -> None:
    """cachedContentTokenCount is the cached part of the input."""
    (path,) = recorded_files("ruby_llm/gemini35flash_web_search_grounding.json")
    usage = read_vertex_reply(load_final_body(path)).usage
    assert (usage.input_tokens, usage.cached_input_tokens) == (568, 217)
