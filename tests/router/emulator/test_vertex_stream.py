"""The real google-genai client reading the emulator's ``streamGenerateContent?alt=sse``."""

from __future__ import annotations

import json
import urllib.request

import pytest
from google import genai
from google.genai import types

from router.emulator import Emulator

MODEL = "gemini-2.5-flash"
ZUGSPITZE = "Wie hoch ist die Zugspitze?"
CONFIG = types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())])
# With aiohttp installed, genai's async transport is aiohttp, and genai subclasses
# aiohttp.ClientSession, which aiohttp deprecates; the warning is theirs, not the emulator's.
GENAI_AIOHTTP_WARNING = pytest.mark.filterwarnings(
    "ignore:Inheritance class AiohttpClientSession from ClientSession:DeprecationWarning"
)


def chunks(client: genai.Client, question: str = ZUGSPITZE) -> list[types.GenerateContentResponse]:
    return list(
        client.models.generate_content_stream(model=MODEL, contents=question, config=CONFIG)
    )


def test_grounding_arrives_on_the_last_chunk_only(vertex_client: genai.Client) -> None:
    """Every chunk carries empty grounding metadata except the last, which is populated."""
    received = chunks(vertex_client)
    assert len(received) >= 2
    for chunk in received[:-1]:
        assert chunk.candidates
        assert chunk.candidates[0].grounding_metadata == types.GroundingMetadata()
    last = received[-1].candidates
    assert last
    assert last[0].grounding_metadata is not None
    assert last[0].grounding_metadata.grounding_chunks
    assert last[0].finish_reason == types.FinishReason.STOP


def test_streamed_text_equals_the_json_answer(vertex_client: genai.Client) -> None:
    """The chunks' text joins to the non-streamed answer; offsets hold over the whole."""
    whole = vertex_client.models.generate_content(model=MODEL, contents=ZUGSPITZE, config=CONFIG)
    streamed = "".join(chunk.text or "" for chunk in chunks(vertex_client))
    assert streamed == whole.text


def test_frames_are_crlf_data_lines(emulator: Emulator) -> None:
    """On the wire each frame is `data: JSON` followed by a blank line, both CRLF."""
    path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{MODEL}"
    request = urllib.request.Request(
        f"{emulator.vertex_base_url}{path}:streamGenerateContent?alt=sse",
        data=json.dumps({"contents": [{"parts": [{"text": ZUGSPITZE}]}]}).encode(),
        headers={"Authorization": "Bearer test", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        body = reply.read()
    frames = body.split(b"\r\n\r\n")
    assert frames[-1] == b""
    assert all(f.startswith(b"data: {") and b"\n" not in f for f in frames[:-1])


def test_without_alt_sse_the_stream_is_a_json_array(emulator: Emulator) -> None:
    """streamGenerateContent without alt=sse answers one JSON array of chunks."""
    path = f"/v1/projects/p/locations/global/publishers/google/models/{MODEL}"
    request = urllib.request.Request(
        f"{emulator.vertex_base_url}{path}:streamGenerateContent",
        data=json.dumps({"contents": [{"parts": [{"text": "Hello"}]}]}).encode(),
        headers={"Authorization": "Bearer test"},
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        array = json.loads(reply.read())
    assert isinstance(array, list)
    assert array[-1]["candidates"][0]["finishReason"] == "STOP"


@pytest.mark.asyncio
@GENAI_AIOHTTP_WARNING
async def test_async_stream(vertex_client: genai.Client) -> None:
    """client.aio streams the same chunks."""
    stream = await vertex_client.aio.models.generate_content_stream(
        model=MODEL, contents=ZUGSPITZE, config=CONFIG
    )
    received = [chunk async for chunk in stream]
    assert received[-1].candidates
    assert received[-1].candidates[0].grounding_metadata is not None
    await vertex_client.aio.aclose()
