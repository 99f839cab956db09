"""The emulator's lifecycle: an aiohttp server on 127.0.0.1 in a thread with its own loop."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from types import TracebackType
from typing import Self

from aiohttp import web

from router.emulator.apis import API_NAMES, BY_NAME, ProviderApi
from router.emulator.app import ProviderHandler
from router.emulator.faults import FaultPlan
from router.emulator.replay import ReplayLibrary
from router.emulator.reply import JSON_CONTENT_TYPE, Reply
from router.emulator.request_log import RecordedRequest, RequestLog

__all__ = ["Emulator"]

logger = logging.getLogger(__name__)

_HOST = "127.0.0.1"
_START_TIMEOUT_S = 10.0
# aiohttp's default of 128 overflows when hundreds of clients connect at once, and each
# dropped SYN costs its client a one-second retransmit.
_LISTEN_BACKLOG = 2048
# In-flight handlers stop waiting as soon as shutdown begins; this only bounds a stuck write.
_SHUTDOWN_TIMEOUT_S = 5.0


class Emulator:
    """A loopback stand-in for the providers' APIs (OpenAI Responses, Vertex AI and Gemini API
    ``generateContent``, Perplexity and OpenRouter chat completions, Anthropic Messages).

    Use it as a context manager (or call :meth:`start` and :meth:`stop`) and point each SDK at
    :meth:`base_url` of its API (``emulator.base_url("openai")``; the properties
    :attr:`openai_base_url`, :attr:`vertex_base_url`, ... say the same).
    ``latency_s`` and ``faults`` may be changed while it runs; they apply from the next request
    on.

    ``latency_s`` is the time from a request's arrival to its reply, synthesis included.
    ``replay`` must be an existing directory (NotADirectoryError otherwise); :meth:`start`
    raises OSError when the port is taken. ``log_limit`` bounds :attr:`requests`.
    ``seed`` makes the ids of synthesised replies (response, item and message ids, Vertex
    ``responseId``) depend only on the seed and the request, so two runs of the same request
    get the same reply, field by field but for the timestamps; without it each reply gets ids
    of its own, as a real service gives.
    """

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        faults: FaultPlan | None = None,
        replay: str | Path | None = None,
        port: int = 0,
        log_limit: int = 10_000,
        seed: str | None = None,
    ) -> None:
        if latency_s < 0:
            raise ValueError("latency_s must not be negative")
        self.latency_s = latency_s
        self.faults = faults
        self._replay = ReplayLibrary(replay) if replay is not None else None
        self._requested_port = port
        self._log = RequestLog(log_limit)
        self._handler = ProviderHandler(
            settings=lambda: (self.latency_s, self.faults),
            replay=self._replay,
            log=self._log,
            seed=seed,
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.ServerRunner | None = None
        self._port: int | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind 127.0.0.1 and serve in a background thread; returns self."""
        if self._thread is not None:
            raise RuntimeError("the emulator is already running")
        loop = asyncio.new_event_loop()
        thread = threading.Thread(
            target=loop.run_forever, name="grounding-router-emulator", daemon=True
        )
        thread.start()
        self._loop, self._thread = loop, thread
        try:
            self._port = asyncio.run_coroutine_threadsafe(self._open(), loop).result(
                _START_TIMEOUT_S
            )
        except BaseException:
            self._halt_loop()
            raise
        logger.info("emulator_started port=%s replay=%s", self._port, self._replay is not None)
        return self

    def stop(self) -> None:
        """Stop serving, end in-flight requests, and release the thread, loop and sockets."""
        if self._loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(
                _SHUTDOWN_TIMEOUT_S * 2
            )
        finally:
            self._halt_loop()
        logger.info("emulator_stopped requests=%s", len(self._log.snapshot()))

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def _open(self) -> int:
        self._handler.reopen()
        server = web.Server(self._handler, handler_cancellation=True, access_log=None)
        runner = web.ServerRunner(server, shutdown_timeout=_SHUTDOWN_TIMEOUT_S)
        await runner.setup()
        self._runner = runner
        site = web.TCPSite(
            runner, _HOST, self._requested_port, reuse_address=True, backlog=_LISTEN_BACKLOG
        )
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        return site.port

    async def _close(self) -> None:
        self._handler.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        # Done on the emulator's own loop, so stop() works from inside another running loop.
        loop = asyncio.get_running_loop()
        await loop.shutdown_asyncgens()
        await loop.shutdown_default_executor()

    def _halt_loop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        self._loop = self._thread = None
        self._port = None

    # -- addresses -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (only while running)."""
        if self._port is None:
            raise RuntimeError("the emulator is not running; use it as a context manager")
        return self._port

    def base_url(self, api: str) -> str:
        """``base_url`` for the SDK of ``api`` (``"openai"``, ``"vertex"``, ...): the origin and
        the API's own suffix (OpenAI's ``/v1``, OpenRouter's ``/api/v1``; the SDKs of the
        others add their version themselves). ValueError for an API the emulator lacks."""
        return f"http://{_HOST}:{self.port}{_api_named(api).base_path}"

    @property
    def openai_base_url(self) -> str:
        """``base_url`` for ``openai.OpenAI`` (ends in ``/v1``)."""
        return self.base_url("openai")

    @property
    def vertex_base_url(self) -> str:
        """``HttpOptions(base_url=...)`` for ``genai.Client(vertexai=True, ...)``."""
        return self.base_url("vertex")

    @property
    def gemini_base_url(self) -> str:
        """``HttpOptions(base_url=...)`` for ``genai.Client(api_key=...)`` (Gemini API)."""
        return self.base_url("gemini")

    @property
    def openrouter_base_url(self) -> str:
        """``base_url`` for an OpenAI-compatible client of OpenRouter (ends in ``/api/v1``)."""
        return self.base_url("openrouter")

    @property
    def perplexity_base_url(self) -> str:
        """``base_url`` for an OpenAI-compatible client of Perplexity (``/chat/completions``)."""
        return self.base_url("perplexity")

    @property
    def anthropic_base_url(self) -> str:
        """``base_url`` for ``anthropic.Anthropic`` (the bare origin: the SDK adds ``/v1``)."""
        return self.base_url("anthropic")

    # -- what happened, what to answer -----------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far, oldest first (a copy)."""
        return self._log.snapshot()

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list[RecordedRequest]:
        """Block until ``count`` requests have arrived (since the last clear); return the log.

        Raises TimeoutError if they have not arrived within ``timeout`` seconds.
        """
        if not self._log.wait_for(count, timeout):
            raise TimeoutError(f"{count} requests did not arrive within {timeout} s")
        return self._log.snapshot()

    def clear_requests(self) -> None:
        """Forget the requests received so far."""
        self._log.clear()

    @property
    def max_in_flight(self) -> int:
        """The most requests that were being handled at the same moment."""
        return self._handler.max_in_flight

    def enqueue_reply(
        self,
        api: str,
        body: bytes,
        *,
        status: int = 200,
        content_type: str = JSON_CONTENT_TYPE,
    ) -> None:
        """Serve exactly ``body`` to the next request on ``api`` (no fault, no synthesis).

        ``api`` names the endpoint as the router names its vendor: "openai", "vertex", ...
        """
        self._handler.enqueue(
            _api_named(api).name, Reply(status, bytes(body), content_type=content_type)
        )

    def enqueue_raw(self, api: str, message: bytes) -> None:
        """Write exactly ``message`` (status line, headers and body, well-formed or not) as the
        reply to the next request on ``api``, then close the connection."""
        self._handler.enqueue(_api_named(api).name, Reply(0, bytes(message), raw=True))


def _api_named(name: str) -> ProviderApi:
    try:
        return BY_NAME[name]
    except KeyError:
        known = ", ".join(map(repr, API_NAMES))
        raise ValueError(f"api must be one of {known}, not {name!r}") from None
