"""The real google-genai client (vertexai=False, an API key) against the emulator's Gemini API."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from router.emulator import REDIRECT_PREFIX, Emulator

MODEL = "gemini-2.5-flash"
QUESTION = "Wie hoch ist die Zugspitze?"
SEARCH = types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())])


@pytest.fixture
def gemini_client(emulator: Emulator) -> Iterator[genai.Client]:
    client = genai.Client(
        vertexai=False,
        api_key="gemini-test-key",
        http_options=types.HttpOptions(
            base_url=emulator.gemini_base_url, api_version="v1beta", timeout=5_000
        ),
    )
    yield client
    client.close()


def _raw(emulator: Emulator, path: str, body: dict[str, Any], **headers: str) -> tuple[int, bytes]:
    request = urllib.request.Request(
        emulator.gemini_base_url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, bytes(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, bytes(error.read())


BODY = {
    "contents": [{"role": "user", "parts": [{"text": QUESTION}]}],
    "tools": [{"googleSearch": {}}],
}


def test_grounded_answer_through_the_sdk(gemini_client: genai.Client) -> None:
    """The SDK gets a grounded answer whose chunks are redirects titled by their domain."""
    response = gemini_client.models.generate_content(model=MODEL, contents=QUESTION, config=SEARCH)
    assert response.candidates
    metadata = response.candidates[0].grounding_metadata
    assert metadata is not None
    assert metadata.web_search_queries
    for chunk in metadata.grounding_chunks or []:
        assert chunk.web is not None
        assert (chunk.web.uri or "").startswith(REDIRECT_PREFIX)


def test_the_body_has_no_vertex_only_fields(emulator: Emulator) -> None:
    """No web.domain on any chunk, no createTime, no trafficType: as the Gemini API sends."""
    status, raw = _raw(
        emulator, f"/v1beta/models/{MODEL}:generateContent", BODY, **{"x-goog-api-key": "k"}
    )
    body = json.loads(raw)
    assert status == 200
    assert "createTime" not in body
    assert "trafficType" not in body["usageMetadata"]
    chunks = body["candidates"][0]["groundingMetadata"]["groundingChunks"]
    assert chunks
    assert all("domain" not in chunk["web"] for chunk in chunks)


def test_v1_is_served_too(emulator: Emulator) -> None:
    """google-genai 3.x's default version, /v1/models/..., reaches the same endpoint."""
    status, _ = _raw(
        emulator, f"/v1/models/{MODEL}:generateContent", BODY, **{"x-goog-api-key": "k"}
    )
    assert status == 200


def test_a_stream_grounds_only_its_last_chunk(emulator: Emulator) -> None:
    """alt=sse: CRLF frames, empty groundingMetadata on every chunk but the populated last."""
    status, raw = _raw(
        emulator,
        f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse",
        BODY,
        **{"x-goog-api-key": "k"},
    )
    frames = [frame for frame in raw.decode().split("\r\n\r\n") if frame]
    chunks = [json.loads(frame.removeprefix("data: ")) for frame in frames]
    assert status == 200
    assert len(chunks) >= 2
    assert [c["candidates"][0]["groundingMetadata"] for c in chunks[:-1]] == [{}] * (
        len(chunks) - 1
    )
    assert chunks[-1]["candidates"][0]["groundingMetadata"]["groundingChunks"]


def test_a_request_without_a_key_is_refused_as_the_api_does(emulator: Emulator) -> None:
    """No API key: 403 PERMISSION_DENIED about unregistered callers."""
    status, raw = _raw(emulator, f"/v1beta/models/{MODEL}:generateContent", BODY)
    error = json.loads(raw)["error"]
    assert (status, error["status"]) == (403, "PERMISSION_DENIED")
    assert "unregistered callers" in error["message"]


def test_the_401_fault_is_the_apis_invalid_key_answer(gemini_client: genai.Client) -> None:
    """The 401 fault answers as the Gemini API answers a bad key: 400 with API_KEY_INVALID."""
    with pytest.raises(genai_errors.ClientError) as raised:
        gemini_client.models.generate_content(
            model=MODEL, contents=f"{QUESTION} [[emulator:fault=401]]", config=SEARCH
        )
    assert (raised.value.code, raised.value.status) == (400, "INVALID_ARGUMENT")
    reasons = [detail.get("reason") for detail in raised.value.details["error"]["details"]]
    assert "API_KEY_INVALID" in reasons


def test_a_rate_limit_says_its_delay_in_retry_info(emulator: Emulator) -> None:
    """429: RESOURCE_EXHAUSTED with a RetryInfo detail, no Retry-After header."""
    request = urllib.request.Request(
        emulator.gemini_base_url + f"/v1beta/models/{MODEL}:generateContent",
        data=json.dumps(BODY).encode(),
        headers={"x-goog-api-key": "k", "X-Emulator-Fault": "429:4"},
    )
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=5)
    assert raised.value.code == 429
    assert raised.value.headers.get("Retry-After") is None
    details = json.loads(raised.value.read())["error"]["details"]
    assert {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "4s"} in details
