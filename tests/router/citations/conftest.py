"""A loopback redirector server for the RedirectResolver tests, run on a thread of its own.

The server answers ``GET /r/{token}`` (and Vertex's ``/grounding-api-redirect/{token}``) from a
table the test fills in (status and Location), so a test states exactly what the redirector
says. It runs on its own event loop in a thread, so the resolver's synchronous entry point can be
tested from inside a running loop too.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web


@dataclass
class LoopbackRedirector:
    """What the server answers and what it saw."""

    answers: dict[str, tuple[int, str | None]] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)
    gate_at: int = 0
    in_flight: int = 0
    most_in_flight: int = 0
    port: int = 0
    loop: asyncio.AbstractEventLoop | None = None
    release: asyncio.Event | None = None

    def url(self, token: str, host: str = "127.0.0.1") -> str:
        """The redirect URL for a token on this server."""
        return f"http://{host}:{self.port}/r/{token}"

    def redirect(self, token: str, location: str | None, status: int = 302) -> str:
        """Answer ``token`` with ``status`` and ``location``; return its URL."""
        self.answers[token] = (status, location)
        return self.url(token)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        self.hits.append(token)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            assert self.release is not None
            if token == "hang" or (self.gate_at and self.in_flight < self.gate_at):
                await self.release.wait()
            elif self.gate_at:
                self.release.set()  # enough requests in flight at once: let them all go
            status, location = self.answers.get(token, (404, None))
            headers = {"Location": location} if location is not None else {}
            return web.Response(status=status, headers=headers)
        finally:
            self.in_flight -= 1


@pytest.fixture
def redirector() -> Iterator[LoopbackRedirector]:
    """A running loopback redirector; every waiting handler is released at teardown."""
    server = LoopbackRedirector()
    loop = asyncio.new_event_loop()
    server.loop = loop
    started = threading.Event()
    runner_box: list[web.AppRunner] = []

    async def start() -> None:
        server.release = asyncio.Event()
        app = web.Application()
        app.router.add_get("/r/{token}", server.handle)
        # Vertex's redirect path, so a Vertex reply's links can point here too.
        app.router.add_get("/grounding-api-redirect/{token}", server.handle)
        runner = web.AppRunner(app, shutdown_timeout=1.0)
        await runner.setup()
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        site = web.SockSite(runner, listener)
        await site.start()
        server.port = listener.getsockname()[1]
        runner_box.append(runner)

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="loopback-redirector", daemon=True)
    thread.start()
    started.wait()
    try:
        yield server
    finally:

        async def stop() -> None:
            assert server.release is not None
            server.release.set()
            await runner_box[0].cleanup()

        asyncio.run_coroutine_threadsafe(stop(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
