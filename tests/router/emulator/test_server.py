"""The emulator's lifecycle and HTTP edges: ports, shutdown, credentials, unknown paths."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import socket
import threading
import urllib.error
import urllib.request
from typing import Any

import aiohttp
import pytest

from router.emulator import Emulator

OPENAI_BODY = {"model": "gpt-4o", "input": "Hello"}


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        url, data=body, headers=headers or {"Authorization": "Bearer t"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as failed:
        return failed.code, json.loads(failed.read())


def test_stop_releases_threads_and_sockets() -> None:
    """After stop, no thread or file descriptor is left, even with a keep-alive client open."""
    threads, fds = threading.active_count(), open_fds()
    emulator = Emulator().start()
    connection = http.client.HTTPConnection("127.0.0.1", emulator.port, timeout=5)
    connection.request(
        "POST", "/v1/responses", json.dumps(OPENAI_BODY), {"Authorization": "Bearer t"}
    )
    assert connection.getresponse().read()
    emulator.stop()
    connection.close()
    assert threading.active_count() == threads
    assert open_fds() == fds


def test_context_manager_stops_on_error() -> None:
    """Leaving the with block by an exception still shuts the server down."""
    threads = threading.active_count()
    with pytest.raises(KeyError), Emulator():
        raise KeyError("boom")
    assert threading.active_count() == threads


def test_stop_twice_and_restart() -> None:
    """stop() is idempotent, and a stopped emulator can start again."""
    emulator = Emulator().start()
    emulator.stop()
    emulator.stop()
    with emulator:
        assert (
            post(emulator.openai_base_url + "/responses", json.dumps(OPENAI_BODY).encode())[0]
            == 200
        )


def test_busy_port_is_reported_without_leaks() -> None:
    """Starting on a port in use raises OSError and leaves no thread behind."""
    threads = threading.active_count()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(OSError, match="address already in use"):
            Emulator(port=busy.getsockname()[1]).start()
    assert threading.active_count() == threads


def test_base_urls_name_the_bound_port() -> None:
    """openai_base_url ends in /v1; vertex_base_url is the bare origin; both on 127.0.0.1."""
    with Emulator() as emulator:
        assert emulator.openai_base_url == f"http://127.0.0.1:{emulator.port}/v1"
        assert emulator.vertex_base_url == f"http://127.0.0.1:{emulator.port}"


def test_addresses_need_a_running_emulator() -> None:
    """Asking for a URL before start is an error, not a wrong port."""
    with pytest.raises(RuntimeError):
        _ = Emulator().openai_base_url


def test_unknown_openai_path_is_openai_404(emulator: Emulator) -> None:
    """A path OpenAI does not serve here gets OpenAI's `Invalid URL` 404."""
    status, body = post(emulator.openai_base_url + "/chat/completions", b"{}")
    assert status == 404
    assert body["error"]["message"] == "Invalid URL (POST /v1/chat/completions)"


def test_unknown_vertex_method_is_google_404(emulator: Emulator) -> None:
    """An unknown Vertex method gets Google's NOT_FOUND body."""
    path = "/v1beta1/projects/p/locations/l/publishers/google/models/m:countTokens"
    status, body = post(emulator.vertex_base_url + path, b"{}")
    assert status == 404
    assert body["error"]["status"] == "NOT_FOUND"


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/v1/responses", "message"),
        ("/v1beta1/publishers/google/models/m:generateContent", "status"),
    ],
    ids=["openai", "vertex"],
)
def test_missing_credentials_are_401(emulator: Emulator, path: str, field: str) -> None:
    """A request without Authorization is refused as each service refuses it."""
    status, body = post(emulator.vertex_base_url + path, b"{}", headers={"X-Other": "1"})
    assert status == 401
    assert body["error"][field]


def test_body_that_is_not_json_is_400(emulator: Emulator) -> None:
    """A body that is not JSON gets OpenAI's parse error."""
    status, body = post(emulator.openai_base_url + "/responses", b"model=gpt-4o")
    assert status == 400
    assert "could not parse the JSON body" in body["error"]["message"]


def test_request_log_keeps_the_latest(emulator: Emulator) -> None:
    """The log is bounded and keeps the most recent requests; clear() empties it."""
    small = Emulator(log_limit=2).start()
    try:
        for word in ("one", "two", "three"):
            post(
                small.openai_base_url + "/responses",
                json.dumps({**OPENAI_BODY, "input": word}).encode(),
            )
        assert [r.json["input"] for r in small.requests] == ["two", "three"]
        small.clear_requests()
        assert small.requests == []
    finally:
        small.stop()


def test_wait_for_requests_times_out(emulator: Emulator) -> None:
    """Waiting for requests that never come raises TimeoutError."""
    with pytest.raises(TimeoutError):
        emulator.wait_for_requests(1, timeout=0.01)


@pytest.mark.asyncio
async def test_requests_are_served_concurrently() -> None:
    """Requests waiting out their latency are in flight together, not queued."""
    # 1 s, not 0.2 s: the ten requests leave one event loop at once, but on two cores shared with
    # busy processes the second can reach the emulator a few hundred ms after the first.
    with Emulator(latency_s=1.0) as emulator:
        async with aiohttp.ClientSession(headers={"Authorization": "Bearer t"}) as session:

            async def one(n: int) -> int:
                body = {**OPENAI_BODY, "input": f"question {n}"}
                async with session.post(
                    emulator.openai_base_url + "/responses", json=body
                ) as reply:
                    await reply.read()
                    return reply.status

            statuses = await asyncio.gather(*(one(n) for n in range(10)))
        assert statuses == [200] * 10
        assert emulator.max_in_flight >= 2
