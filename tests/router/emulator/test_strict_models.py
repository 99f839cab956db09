"""Synthesised bodies satisfy even the SDKs' strict models, not just their lenient parsers."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from google.genai.types import GenerateContentResponse
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from router.emulator import Emulator

QUESTIONS = ["What is the capital of France?", "Wie hoch ist die Zugspitze?", "Explain tides"]
VERTEX = "/v1beta1/projects/p/locations/l/publishers/google/models/gemini-2.5-flash"
JSON_SCHEMA = {
    "type": "json_schema",
    "name": "Answer",
    "strict": True,
    "schema": {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    },
}


def post(url: str, body: dict[str, Any]) -> str:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Authorization": "Bearer t"}
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        return str(reply.read().decode())


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize(
    "extra",
    [{}, {"include": ["web_search_call.action.sources"]}, {"text": {"format": JSON_SCHEMA}}],
    ids=["plain", "sources", "json_schema"],
)
def test_openai_body_validates_strictly(
    emulator: Emulator, question: str, extra: dict[str, Any]
) -> None:
    """Response.model_validate (strict, unlike the client's parse) accepts the body."""
    body = {"model": "gpt-5.2", "input": question, "tools": [{"type": "web_search"}], **extra}
    Response.model_validate_json(post(emulator.openai_base_url + "/responses", body))


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize(
    "config", [{}, {"responseMimeType": "application/json"}], ids=["text", "json"]
)
def test_vertex_body_validates_strictly(
    emulator: Emulator, question: str, config: dict[str, Any]
) -> None:
    """GenerateContentResponse.model_validate (extra fields forbidden) accepts the body."""
    body = {
        "contents": [{"parts": [{"text": question}]}],
        "tools": [{"googleSearch": {}}],
        "generationConfig": config,
    }
    GenerateContentResponse.model_validate_json(
        post(emulator.vertex_base_url + VERTEX + ":generateContent", body)
    )


def test_openai_stream_events_validate_strictly(emulator: Emulator) -> None:
    """Every stream event validates strictly, except one the real service sends too.

    output_item.added for a web_search_call carries no `action` on the wire (recorded streams
    show it); the SDK's strict model requires one, its lenient parser does not.
    """
    body = {
        "model": "gpt-5.2",
        "input": QUESTIONS[0],
        "tools": [{"type": "web_search"}],
        "stream": True,
    }
    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    checked = 0
    for frame in post(emulator.openai_base_url + "/responses", body).split("\n\n")[:-1]:
        event = json.loads(frame.split("\ndata: ", 1)[1])
        item = event.get("item", {})
        if event["type"] == "response.output_item.added" and item["type"] == "web_search_call":
            assert "action" not in item
            continue
        adapter.validate_python(event)
        checked += 1
    assert checked > 20


def test_vertex_stream_chunks_validate_strictly(emulator: Emulator) -> None:
    """Every alt=sse chunk validates strictly."""
    body = {"contents": [{"parts": [{"text": QUESTIONS[1]}]}], "tools": [{"googleSearch": {}}]}
    text = post(emulator.vertex_base_url + VERTEX + ":streamGenerateContent?alt=sse", body)
    frames = text.split("\r\n\r\n")[:-1]
    assert len(frames) >= 2
    for frame in frames:
        GenerateContentResponse.model_validate_json(frame.removeprefix("data: "))
