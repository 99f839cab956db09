"""Replies whose bytes cannot be read are classified per the error tree, never ``unexpected``.

A loopback server answers every provider call with one broken body: a reply cut inside a
UTF-8 character (a cut connection: ``ProviderTransientError``, retried), a body nested deeper
than Python's parser goes or holding an integer past its digit limit, and an event stream of
garbage (the reply cannot be used: ``ResponseParseError``). ``unexpected_error`` is never
retried, so any of these reported as one would leave a row un-retried in a batch.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router import ProviderTransientError, ResponseParseError, Router
from router.errors import RouterError
from support.emulated import emulator_settings
from support.sleeps import RecordedSleeps

JSON = "application/json"
SSE = "text/event-stream"
BODIES = {
    "cut_in_utf8": (JSON, b'{"id": "r", "model": "m", "text": "caf\xc3', ProviderTransientError),
    "deep": (JSON, b"[" * 200_000 + b"]" * 200_000, ResponseParseError),
    "big_integer": (JSON, b'{"id": "r", "n": ' + b"7" * 6000 + b"}", ResponseParseError),
}
GARBAGE_SSE = (SSE, b"data: {not json at all\n\ndata: \xff\xfe\n\n", ResponseParseError)
VENDORS = [row.vendor for row in PROVIDERS.values()]
STREAMING = [row.vendor for row in PROVIDERS.values() if row.capabilities.streaming]


class _Server:
    """Answers every POST with ``body`` (status 200, ``content_type``)."""

    def __init__(self) -> None:
        self.content_type = JSON
        self.body = b"{}"
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                self.send_response(200)
                self.send_header("content-type", server.content_type)
                self.send_header("content-length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body)

            def log_message(self, *args: Any) -> None:
                del args

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]

    def base_url(self, vendor: str) -> str:
        del vendor
        return f"http://127.0.0.1:{self.port}/v1"


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    """One loopback server for the module."""
    running = _Server()
    thread = threading.Thread(target=running.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.httpd.shutdown()
        running.httpd.server_close()


def _router(server: _Server) -> Router:
    sleeps = RecordedSleeps()
    settings = emulator_settings(server, max_attempts=1)
    return Router(settings, sleep=sleeps, async_sleep=sleeps.asleep)


def _request(vendor: str) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,  # type: ignore[index]
        "messages": [{"role": "user", "content": "q"}],
        "grounded": True,
    }


@pytest.mark.parametrize("case", list(BODIES))
@pytest.mark.parametrize("vendor", VENDORS)
def test_route_classifies_an_unreadable_body(server: _Server, vendor: str, case: str) -> None:
    """route() raises the error the body calls for, not an unexpected_error."""
    server.content_type, server.body, expected = BODIES[case]
    with _router(server) as router, pytest.raises(RouterError) as raised:
        router.route(_request(vendor))
    assert raised.value.reason != "unexpected_error", raised.value
    assert isinstance(raised.value, expected), raised.value


@pytest.mark.parametrize("vendor", STREAMING)
def test_stream_classifies_garbage_events(server: _Server, vendor: str) -> None:
    """stream() over an event stream of garbage raises ResponseParseError, not unexpected."""
    server.content_type, server.body, expected = GARBAGE_SSE
    with _router(server) as router, pytest.raises(RouterError) as raised:
        list(router.stream(_request(vendor)))
    assert raised.value.reason != "unexpected_error", raised.value
    assert isinstance(raised.value, expected | ProviderTransientError), raised.value
