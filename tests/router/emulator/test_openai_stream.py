"""The real openai client reading the emulator's Responses SSE stream."""

from __future__ import annotations

import urllib.request
from typing import Any

import openai
import pytest

from router.emulator import Emulator

SEARCH: list[Any] = [{"type": "web_search"}]
PARIS = "What is the capital of France?"


def stream_events(client: openai.OpenAI, question: str = PARIS) -> list[Any]:
    return list(client.responses.create(model="gpt-4o", input=question, tools=SEARCH, stream=True))


def test_event_order_follows_the_real_service(openai_client: openai.OpenAI) -> None:
    """created, in_progress, search items, message parts and deltas, then completed."""
    kinds = [event.type for event in stream_events(openai_client)]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    first_search = kinds.index("response.web_search_call.in_progress")
    assert kinds[first_search : first_search + 3] == [
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
    ]
    assert kinds.index("response.content_part.added") < kinds.index("response.output_text.delta")
    assert kinds[-4:-1] == [
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
    ]


def test_sequence_numbers_count_from_zero(openai_client: openai.OpenAI) -> None:
    """Every event carries the next sequence_number."""
    events = stream_events(openai_client)
    assert [event.sequence_number for event in events] == list(range(len(events)))


def test_search_item_is_added_without_its_action(openai_client: openai.OpenAI) -> None:
    """output_item.added for a web_search_call has no action; output_item.done has it."""
    events = stream_events(openai_client)
    added = [e.item for e in events if e.type == "response.output_item.added"]
    done = [e.item for e in events if e.type == "response.output_item.done"]
    searches_added = [item for item in added if item.type == "web_search_call"]
    assert searches_added
    assert all(item.action is None and item.status == "in_progress" for item in searches_added)
    assert all(item.action is not None for item in done if item.type == "web_search_call")


def test_annotation_follows_the_delta_that_completes_its_marker(
    openai_client: openai.OpenAI,
) -> None:
    """annotation.added comes after the text it points into has been streamed."""
    streamed = ""
    seen = 0
    for event in stream_events(openai_client):
        if event.type == "response.output_text.delta":
            streamed += event.delta
            assert event.obfuscation
        elif event.type == "response.output_text.annotation.added":
            assert event.annotation_index == seen
            assert event.annotation.end_index <= len(streamed)
            assert streamed[event.annotation.start_index : event.annotation.end_index].startswith(
                "(["
            )
            seen += 1
    assert seen >= 2


def test_stream_assembles_to_the_json_reply(openai_client: openai.OpenAI) -> None:
    """responses.stream() accumulates to the same text and annotations as the JSON reply."""
    question = "How do heat pumps work in cold climates?"
    plain = openai_client.responses.create(model="gpt-4o", input=question, tools=SEARCH)
    with openai_client.responses.stream(model="gpt-4o", input=question, tools=SEARCH) as stream:
        final = stream.get_final_response()
    assert final.output_text == plain.output_text
    assert [a.url for a in final.output[-1].content[0].annotations] == [  # type: ignore[union-attr]
        a.url
        for a in plain.output[-1].content[0].annotations  # type: ignore[union-attr]
    ]


def test_stream_is_named_lf_framed_sse(emulator: Emulator) -> None:
    """On the wire every frame is `event: NAME` then `data: JSON`, lines ending in LF."""
    request = urllib.request.Request(
        emulator.openai_base_url + "/responses",
        data=b'{"model": "gpt-4o", "input": "Hi there", "stream": true}',
        headers={"Authorization": "Bearer test", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        assert reply.headers["Content-Type"].startswith("text/event-stream")
        body = reply.read()
    frames = body.decode().split("\n\n")
    assert frames[-1] == ""
    assert all(f.startswith("event: response.") and "\ndata: {" in f for f in frames[:-1])
    assert b"\r" not in body


@pytest.mark.asyncio
async def test_async_stream(async_openai_client: openai.AsyncOpenAI) -> None:
    """AsyncOpenAI streams the same events."""
    stream = await async_openai_client.responses.create(
        model="gpt-4o", input=PARIS, tools=SEARCH, stream=True
    )
    kinds = [event.type async for event in stream]
    assert kinds[-1] == "response.completed"
    assert "response.output_text.annotation.added" in kinds
