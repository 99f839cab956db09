"""Replies mapped to AdapterResult: text, JSON, usage, metadata, and unusable replies."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.openai.reply import map_openai_reply
from router.errors import ResponseParseError
from router.types import LLMRequest, Usage
from support.openai import OPENAI_FILES, sdk_object
from support.recorded import load_final_body

TOKEN = "\ue200cite\ue202turn0search0\ue201"
TEXT = LLMRequest(vendor="openai", model="gpt-5", messages=[{"role": "user", "content": "Q"}])
JSON = TEXT.model_copy(update={"json_mode": True})


def body(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "model": "gpt-5-2025-08-07",
        "status": "completed",
        "output": [
            {
                "id": "ws_1",
                "type": "web_search_call",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "q",
                    "sources": [{"type": "url", "url": "https://a.com/x"}],
                },
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            },
        ],
        "usage": {
            "input_tokens": 30,
            "output_tokens": 12,
            "total_tokens": 42,
            "input_tokens_details": {"cached_tokens": 0},
        },
        **extra,
    }


def recorded(prefix: str) -> dict[str, Any]:
    (path,) = [p for p in OPENAI_FILES if p.name.startswith(prefix)]
    return load_final_body(path)


def test_text_answer() -> None:
    """Content, model version, usage, grounding and metadata come from the reply."""
    result = map_openai_reply(body("Paris."), TEXT)
    assert result.content == "Paris."
    assert result.parsed is None
    assert result.model_version == "gpt-5-2025-08-07"
    assert result.usage == Usage(
        input_tokens=30, output_tokens=12, total_tokens=42, cached_input_tokens=0
    )
    assert (result.grounded_effective, result.tool_call_count) == (True, 1)
    assert result.web_search_queries == ["q"]
    assert [c["url"] for c in result.citations] == ["https://a.com/x"]
    assert result.warnings == []
    assert result.metadata == {
        "response_id": "resp_1",
        "status": "completed",
        "sources_seen": 1,
        "sources_dropped": 0,
        "non_url_sources": [],
    }


def test_json_answer_without_tokens() -> None:
    """In JSON mode the content is the JSON text without citation tokens, parsed into parsed."""
    result = map_openai_reply(body(f'{{"capital": "Paris {TOKEN}", "n": 1}}'), JSON)
    assert result.content == '{"capital": "Paris", "n": 1}'
    assert result.parsed == {"capital": "Paris", "n": 1}
    assert result.metadata["citation_tokens_removed"] == 1


def test_invalid_json_names_the_problem() -> None:
    """A JSON answer that does not parse says where and how it starts."""
    with pytest.raises(ResponseParseError) as caught:
        map_openai_reply(body('{"capital": "Par'), JSON)
    error = caught.value
    assert error.reason == "invalid_json"
    assert "Unterminated string" in error.message
    assert "char 12" in error.message
    assert '{"capital": "Par' in error.message


def test_cut_json_says_why_it_was_cut() -> None:
    """When the reply stopped at max_output_tokens, the JSON error says so."""
    reply = body(
        '{"capital": ', status="incomplete", incomplete_details={"reason": "max_output_tokens"}
    )
    with pytest.raises(ResponseParseError, match="cut short: max_output_tokens"):
        map_openai_reply(reply, JSON)


def test_text_mode_does_not_parse_json() -> None:
    """Without JSON mode a text that looks broken as JSON is just text."""
    assert map_openai_reply(body('{"capital": '), TEXT).content == '{"capital": '


def test_empty_answer_is_unusable() -> None:
    """No answer text at all is a parse error naming the status and the incomplete reason."""
    reply = body("  ", status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    with pytest.raises(ResponseParseError) as caught:
        map_openai_reply(reply, TEXT)
    assert caught.value.reason == "empty_answer"
    assert "status incomplete, incomplete: max_output_tokens" in caught.value.message


def test_refusal_is_unusable() -> None:
    """A refusal instead of an answer is a parse error that quotes it."""
    reply = body("")
    reply["output"][1]["content"] = [{"type": "refusal", "refusal": "I can't help with that."}]
    with pytest.raises(ResponseParseError) as caught:
        map_openai_reply(reply, TEXT)
    assert caught.value.reason == "refusal"
    assert 'refused: "I can\'t help with that."' in caught.value.message


def test_chat_completions_usage_names() -> None:
    """Chat Completions' prompt/completion token names fill the same usage fields."""
    result = map_openai_reply(recorded("openai_chat_gpt4o_mini"), TEXT)
    assert result.usage.input_tokens is not None
    assert result.usage.total_tokens == result.usage.input_tokens + (
        result.usage.output_tokens or 0
    )


def test_missing_usage_is_unknown() -> None:
    """A reply without usage reports None counts rather than zeros."""
    reply = body("Paris.")
    del reply["usage"]
    assert map_openai_reply(reply, TEXT).usage == Usage()


def test_warning_goes_into_warnings() -> None:
    """The [CITATIONS] warning of a search without citations is an AdapterResult warning."""
    result = map_openai_reply(recorded("openai_responses_stream_weather_api"), TEXT)
    (warning,) = result.warnings
    assert warning.startswith("[CITATIONS] OpenAI: 1 tool calls but 0 citations extracted.")
    assert result.metadata["non_url_sources"] == ["oai-weather"]


@pytest.mark.parametrize("path", OPENAI_FILES, ids=[p.name for p in OPENAI_FILES])
def test_sdk_object_maps_like_its_dict(path: Any) -> None:
    """The SDK object and its dict give the same AdapterResult."""
    reply = load_final_body(path)
    assert map_openai_reply(sdk_object(reply), TEXT) == map_openai_reply(reply, TEXT)


def test_usage_details_and_search_tool() -> None:
    """Cached input, reasoning tokens and the search tool the reply echoes are read."""
    result = map_openai_reply(recorded("openai_responses_news_3"), TEXT)
    assert result.usage == Usage(
        input_tokens=115_886,
        output_tokens=1_720,
        total_tokens=117_606,
        cached_input_tokens=92_160,
        reasoning_tokens=1_472,
        search_tool="web_search",
    )
    preview = map_openai_reply(recorded("openai_responses_web_search_preview"), TEXT)
    assert preview.usage.search_tool == "web_search_preview"


def test_chat_completions_usage_details() -> None:
    """Chat Completions' prompt and completion details fill the same detail fields."""
    usage = map_openai_reply(recorded("openai_chat_gpt4o_mini"), TEXT).usage
    assert (usage.cached_input_tokens, usage.reasoning_tokens, usage.search_tool) == (0, 0, None)
