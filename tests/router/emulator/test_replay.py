"""Recorded bodies replayed verbatim, and bodies queued for the next request."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from google.genai import types

from router.emulator import FAULT_HEADER, REPLAY_HEADER, Emulator

RECORDED = Path(__file__).resolve().parents[2] / "data" / "recorded"
OPENAI_JSON = "ruby_llm/openai_responses_gpt52_ruby_version.json"
OPENAI_SSE = "pydantic-ai/openai_responses_gpt52_stream_annotation_added.sse.txt"
VERTEX_JSON = "ruby_llm/vertex_gemini25flash_ruby_version_web_domain.json"
VERTEX_SSE = "pydantic-ai/vertex_gemini25flash_stream_web_domain.sse.txt"
VERTEX_PATH = "/v1beta1/projects/p/locations/l/publishers/google/models/gemini-2.5-flash"


@pytest.fixture
def replaying() -> Iterator[Emulator]:
    with Emulator(replay=RECORDED) as running:
        yield running


def post(url: str, body: dict[str, Any], **headers: str) -> tuple[int, str, bytes]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Authorization": "Bearer t", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.headers["Content-Type"], reply.read()
    except urllib.error.HTTPError as failed:
        return failed.code, failed.headers["Content-Type"], failed.read()


OPENAI_BODY = {"model": "gpt-5.2", "input": "Latest Ruby?", "tools": [{"type": "web_search"}]}
VERTEX_BODY = {"contents": [{"parts": [{"text": "Latest Ruby?"}]}], "tools": [{"googleSearch": {}}]}


@pytest.mark.parametrize(
    ("name", "endpoint", "body"),
    [
        (OPENAI_JSON, "/v1/responses", OPENAI_BODY),
        (OPENAI_SSE, "/v1/responses", {**OPENAI_BODY, "stream": True}),
        (VERTEX_JSON, f"{VERTEX_PATH}:generateContent", VERTEX_BODY),
        (VERTEX_SSE, f"{VERTEX_PATH}:streamGenerateContent?alt=sse", VERTEX_BODY),
    ],
    ids=["openai_json", "openai_sse", "vertex_json", "vertex_sse"],
)
def test_named_recording_comes_back_byte_identical(
    replaying: Emulator, name: str, endpoint: str, body: dict[str, Any]
) -> None:
    """The file named by X-Emulator-Replay is served byte for byte, with a fitting type."""
    status, content_type, data = post(
        replaying.vertex_base_url + endpoint, body, **{REPLAY_HEADER: name}
    )
    assert status == 200
    assert data == (RECORDED / name).read_bytes()
    expected = "text/event-stream" if name.endswith(".sse.txt") else "application/json"
    assert content_type.startswith(expected)


def test_openai_sdk_parses_a_replayed_body(replaying: Emulator) -> None:
    """The openai client gets the recorded body unchanged and parses it."""
    with openai.OpenAI(base_url=replaying.openai_base_url, api_key="t", max_retries=0) as client:
        raw = client.responses.with_raw_response.create(
            model="gpt-5.2", input="Latest Ruby?", extra_headers={REPLAY_HEADER: OPENAI_JSON}
        )
        assert raw.http_response.content == (RECORDED / OPENAI_JSON).read_bytes()
        assert "Ruby 4.0.6" in raw.parse().output_text


def test_openai_sdk_streams_a_replayed_stream(replaying: Emulator) -> None:
    """A recorded Responses SSE stream replays through the openai client's stream parser."""
    with openai.OpenAI(base_url=replaying.openai_base_url, api_key="t", max_retries=0) as client:
        events = list(
            client.responses.create(
                model="gpt-5.2", input="q", stream=True, extra_headers={REPLAY_HEADER: OPENAI_SSE}
            )
        )
    assert events[-1].type == "response.completed"


def test_genai_streams_a_replayed_stream(vertex_client_factory: Any, replaying: Emulator) -> None:
    """A recorded Vertex CRLF stream replays through genai: empty grounding, then full."""
    client = vertex_client_factory(replaying, headers={REPLAY_HEADER: VERTEX_SSE})
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="q"))
    assert len(chunks) == 6
    assert chunks[-1].candidates[0].grounding_metadata.grounding_chunks


def test_recordings_take_turns(tmp_path: Path) -> None:
    """Without a header, the files that fit the endpoint are served in turn."""
    for name in (OPENAI_JSON, "pydantic-ai/openai_responses_news_3_citations.json", VERTEX_JSON):
        shutil.copy(RECORDED / name, tmp_path / Path(name).name)
    (tmp_path / "notes.json").write_text('{"not": "a provider body"}')
    with Emulator(replay=tmp_path) as emulator:
        served = [post(emulator.openai_base_url + "/responses", OPENAI_BODY)[2] for _ in range(3)]
    first, second = json.loads(served[0])["id"], json.loads(served[1])["id"]
    assert first != second
    assert served[2] == served[0]


def test_no_fitting_recording_is_a_clear_error(tmp_path: Path) -> None:
    """A replay directory without a body for the endpoint answers 400 and says so."""
    shutil.copy(RECORDED / OPENAI_JSON, tmp_path / "one.json")
    with Emulator(replay=tmp_path) as emulator:
        status, _, data = post(
            emulator.vertex_base_url + f"{VERTEX_PATH}:generateContent", VERTEX_BODY
        )
    assert status == 400
    assert "no recorded vertex JSON body" in json.loads(data)["error"]["message"]


def test_replay_names_stay_inside_the_directory(replaying: Emulator) -> None:
    """A replay header cannot reach files outside the replay directory."""
    status, _, _ = post(
        replaying.openai_base_url + "/responses",
        OPENAI_BODY,
        **{REPLAY_HEADER: "../emulator_topics.json"},
    )
    assert status == 400


def test_faults_apply_before_replay(replaying: Emulator) -> None:
    """A fault still hits a replaying emulator; the recording is served once it is spent."""
    headers = {REPLAY_HEADER: OPENAI_JSON, FAULT_HEADER: "503*1"}
    assert post(replaying.openai_base_url + "/responses", OPENAI_BODY, **headers)[0] == 503
    assert post(replaying.openai_base_url + "/responses", OPENAI_BODY, **headers)[0] == 200


def test_queued_body_is_served_to_the_next_request(emulator: Emulator) -> None:
    """enqueue_reply serves exactly those bytes once; later requests are synthesised again."""
    body = b'{"id": "resp_fuzz", "object": "response", "output": [], "weird": [1, 2'
    emulator.enqueue_reply("openai", body, status=200)
    assert post(emulator.openai_base_url + "/responses", OPENAI_BODY)[2] == body
    assert json.loads(post(emulator.openai_base_url + "/responses", OPENAI_BODY)[2])["output"]


def test_queued_reply_is_per_api(emulator: Emulator) -> None:
    """A body queued for Vertex is not served to an OpenAI request."""
    emulator.enqueue_reply("vertex", b"[]", status=500, content_type="text/plain")
    assert post(emulator.openai_base_url + "/responses", OPENAI_BODY)[0] == 200
    status, content_type, data = post(
        emulator.vertex_base_url + f"{VERTEX_PATH}:generateContent", VERTEX_BODY
    )
    assert (status, content_type, data) == (500, "text/plain", b"[]")


def test_queued_replies_keep_their_order(vertex_client_factory: Any, emulator: Emulator) -> None:
    """Several queued bodies go out first in, first out, through the SDK's parser."""
    for text in ("first", "second"):
        reply = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}
        emulator.enqueue_reply("vertex", json.dumps(reply).encode())
    client = vertex_client_factory()
    config = types.GenerateContentConfig()
    texts = [
        client.models.generate_content(model="gemini-2.5-flash", contents="q", config=config).text
        for _ in range(2)
    ]
    assert texts == ["first", "second"]


def test_queue_for_an_unknown_api_is_refused(emulator: Emulator) -> None:
    """Only "openai" and "vertex" have queues; anything else is a caller's mistake."""
    with pytest.raises(ValueError, match="openai"):
        emulator.enqueue_reply("nobody", b"{}")  # type: ignore[arg-type]
