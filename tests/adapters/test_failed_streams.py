"""A stream the provider ends with an error never completes into an answer."""

from __future__ import annotations

from typing import Any

import pytest

from router import extract
from router.errors import ProviderTransientError, ResponseParseError
from router.extraction import offline_request
from router.streaming.accumulator import open_stream_reader
from support.recorded import load_events, recorded_files

OPENAI_SSE = recorded_files("mirascope/openai_responses_gpt4o_stream.sse.txt")[0]
GEMINI_SSE = recorded_files("pydantic-ai/gemini25pro_weather_grounding_stream.sse.txt")[0]


def _openai_text_then(ending: dict[str, Any]) -> list[dict[str, Any]]:
    events = load_events(OPENAI_SSE)
    first_delta = next(i for i, e in enumerate(events) if e["type"] == "response.output_text.delta")
    return [*events[: first_delta + 5], ending]


FAILURES = [
    pytest.param(
        "openai",
        _openai_text_then(
            {
                "type": "response.failed",
                "response": {
                    "status": "failed",
                    "error": {"code": "server_error", "message": "boom"},
                },
            }
        ),
        ProviderTransientError,
        id="openai-response.failed-server_error",
    ),
    pytest.param(
        "openai",
        _openai_text_then({"type": "error", "code": "invalid_prompt", "message": "refused"}),
        ResponseParseError,
        id="openai-error-event",
    ),
    pytest.param(
        "vertex",
        [*load_events(GEMINI_SSE)[:3], {"error": {"code": 503, "message": "overloaded"}}],
        ProviderTransientError,
        id="vertex-error-chunk-503",
    ),
]


@pytest.mark.parametrize(("vendor", "chunks", "error"), FAILURES)
def test_a_failed_stream_raises_with_the_providers_message(
    vendor: str, chunks: list[dict[str, Any]], error: type[Exception]
) -> None:
    """The reader's strict result raises stream_failed, transient or not as the code says."""
    reader = open_stream_reader(vendor, offline_request(vendor))
    for chunk in chunks:
        reader.feed(chunk)
    assert reader.complete
    with pytest.raises(error) as raised:
        reader.finish(strict=True)
    assert raised.value.reason == "stream_failed"  # type: ignore[attr-defined]
    assert "the stream failed after" in str(raised.value)


@pytest.mark.parametrize(("vendor", "chunks", "error"), FAILURES)
def test_extract_keeps_a_failed_streams_message(
    vendor: str, chunks: list[dict[str, Any]], error: type[Exception]
) -> None:
    """Offline, the text that came is kept and the failure is a warning."""
    del error
    response = extract(vendor, chunks)
    assert response.content
    assert any("the stream failed" in w for w in response.metadata["warnings"])
