"""OpenAIAdapter: the Responses API through the official ``openai`` client.

The adapter builds the call (:mod:`adapters.openai.request`), sends it once with the SDK's
retries off (the router's retry layer owns retries; only a refused forced tool or ``web_search``
gets one changed request, :mod:`adapters.openai.fallbacks`), translates SDK errors at the boundary
(:mod:`adapters.openai.errors`, which documents how each failure is classified) and maps the
reply with pure functions (:mod:`adapters.openai.reply`, :mod:`adapters.openai.citations`).
The call goes through the client's documented generic ``post`` with the prepared body and
``cast_to=object``: the parameters are already plain JSON, and the mappers read plain dicts, so
the SDK's per-call transform of the typed parameters and its ``Response`` model (built only to be
dumped again) were about half of each call's CPU. Authentication, timeouts and the SDK's errors
are unchanged; the request on the wire is the same as ``responses.create`` sends. Streams take
the same route with ``stream=True``: the SDK decodes the event stream and hands each event's
data over as the plain dict it is, which the stream reader (:mod:`adapters.openai.stream`)
reads; no typed event is built.

The clients' HTTP stacks come from :mod:`adapters.http_clients`: bounded by the call's
deadline and reply limit, following no redirect. Clients are created lazily and reused, keyed
by what shapes them (API key and base URL), so one adapter serves any settings from any thread.
Async clients belong to the event loop they were created on, so they are kept per running loop
(:mod:`adapters.loop_clients`); ``aclose()`` closes the current loop's clients, ``close()`` the
sync ones and those of loops that are no longer running, and a loop that shuts down the way
``asyncio.run`` does closes its own.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import structlog

from adapters.base import AdapterResult, StreamingAdapter, StreamReader
from adapters.http_clients import async_client_options, sdk_timeout_s, sync_client
from adapters.loop_clients import LoopClients
from adapters.openai.citations import (
    OpenAIGrounding,
    _extract_openai_citations,
    extract_openai_grounding,
)
from adapters.openai.errors import KEY_SETTING, translate_openai_errors
from adapters.openai.fallbacks import fallback_for
from adapters.openai.reply import map_openai_reply
from adapters.openai.request import build_response_params
from router.errors import ConfigurationError, ProviderRequestError
from router.logging import grounding_debug_enabled
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

if TYPE_CHECKING:
    from openai import AsyncOpenAI, OpenAI

__all__ = [
    "OpenAIAdapter",
    "OpenAIGrounding",
    "_extract_openai_citations",
    "extract_openai_grounding",
]

_log = structlog.get_logger(__name__)
T = TypeVar("T")

RESPONSES_PATH = "/responses"

# What shapes a client: the API key and the base URL (None: the SDK's default endpoint).
_ClientKey = tuple[str, str | None]


class OpenAIAdapter:
    """Sends router requests to the OpenAI Responses API; one instance serves every call."""

    vendor: Vendor = "openai"

    def __init__(self) -> None:
        # The SDK is imported with the adapter, so no call's deadline pays for the import.
        importlib.import_module("openai")
        self._lock = threading.Lock()
        self._clients: dict[_ClientKey, OpenAI] = {}
        self._async_clients: LoopClients[_ClientKey, AsyncOpenAI] = LoopClients(
            _new_async_client, _close_async_client
        )

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send ``request`` once and map the reply (no retries here, but for the changed
        request a refused forced tool or ``web_search`` gets, :mod:`adapters.openai.fallbacks`)."""
        key = _client_key(settings)
        client = self._client(key)
        timeout = _timeout(request, settings)
        body, fallbacks = _sent(
            lambda params: client.post(
                RESPONSES_PATH, body=params, cast_to=object, options={"timeout": timeout}
            ),
            build_response_params(request, force_search=settings.openai_force_search),
            request,
            key[0],
        )
        return self._mapped(body, request, fallbacks)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        key = _client_key(settings)
        client = self._async_clients.get(key)
        timeout = _timeout(request, settings)
        body, fallbacks = await _asent(
            lambda params: client.post(
                RESPONSES_PATH, body=params, cast_to=object, options={"timeout": timeout}
            ),
            build_response_params(request, force_search=settings.openai_force_search),
            request,
            key[0],
        )
        return self._mapped(body, request, fallbacks)

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Send ``request`` as a stream once; yield its events as dicts (no retries here, but
        for a refused forced tool or ``web_search`` when the stream opens, as in ``complete``)."""
        from openai import Stream

        key = _client_key(settings)
        client = self._client(key)
        timeout = _timeout(request, settings)
        params = build_response_params(request, force_search=settings.openai_force_search)
        events, _ = _sent(
            lambda sent: client.post(
                RESPONSES_PATH,
                body=sent,
                cast_to=object,
                stream=True,
                stream_cls=Stream[object],
                options={"timeout": timeout},
            ),
            {**params, "stream": True},
            request,
            key[0],
        )
        try:
            with translate_openai_errors(secret=key[0]):
                for event in events:
                    if isinstance(event, dict):
                        yield event
        finally:
            events.close()

    async def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        from openai import AsyncStream

        key = _client_key(settings)
        client = self._async_clients.get(key)
        timeout = _timeout(request, settings)
        params = build_response_params(request, force_search=settings.openai_force_search)
        events, _ = await _asent(
            lambda sent: client.post(
                RESPONSES_PATH,
                body=sent,
                cast_to=object,
                stream=True,
                stream_cls=AsyncStream[object],
                options={"timeout": timeout},
            ),
            {**params, "stream": True},
            request,
            key[0],
        )
        try:
            with translate_openai_errors(secret=key[0]):
                async for event in events:
                    if isinstance(event, dict):
                        yield event
        finally:
            await events.close()

    def finish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """A Responses stream's answer is complete as streamed: no follow-up call."""
        del request, settings
        return reader.finish(strict=True)

    async def afinish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The async twin of :meth:`finish_stream`."""
        del request, settings
        return reader.finish(strict=True)

    def close(self) -> None:
        """Close the sync clients, and the async ones of event loops that are not running."""
        with self._lock:
            clients = list(self._clients.values())
            self._clients.clear()
        for client in clients:
            client.close()
        self._async_clients.close_idle()

    async def aclose(self) -> None:
        """Close the async clients created on the running event loop."""
        await self._async_clients.aclose()

    def _client(self, key: _ClientKey) -> OpenAI:
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                from openai import DefaultHttpxClient, OpenAI

                client = self._clients[key] = OpenAI(
                    api_key=key[0],
                    base_url=key[1],
                    max_retries=0,
                    http_client=sync_client(DefaultHttpxClient),
                )
                if grounding_debug_enabled():
                    _log.debug("openai_client_created", kind="sync", clients=len(self._clients))
            return client

    @staticmethod
    def _mapped(response: Any, request: LLMRequest, fallbacks: list[str]) -> AdapterResult:
        result = map_openai_reply(response, request)
        if fallbacks:
            result.metadata["request_fallbacks"] = list(fallbacks)
        if grounding_debug_enabled():
            _log.debug(
                "openai_reply_mapped",
                request_id=request.request_id,
                response_id=result.metadata.get("response_id"),
                citations=len(result.citations),
                tool_calls=result.tool_call_count,
                grounded_effective=result.grounded_effective,
            )
        return result


def _sent(
    post: Callable[[dict[str, Any]], T], params: dict[str, Any], request: LLMRequest, secret: str
) -> tuple[T, list[str]]:
    """``post(params)``, sent once more changed when the API refuses a forced tool or
    ``web_search`` (:mod:`adapters.openai.fallbacks`); the changes made, in order."""
    fallbacks: list[str] = []
    while True:
        try:
            with translate_openai_errors(secret=secret):
                return post(params), fallbacks
        except ProviderRequestError as error:
            params = _changed_params(error, params, request, fallbacks)


async def _asent(
    post: Callable[[dict[str, Any]], Awaitable[T]],
    params: dict[str, Any],
    request: LLMRequest,
    secret: str,
) -> tuple[T, list[str]]:
    """The async twin of :func:`_sent`."""
    fallbacks: list[str] = []
    while True:
        try:
            with translate_openai_errors(secret=secret):
                return await post(params), fallbacks
        except ProviderRequestError as error:
            params = _changed_params(error, params, request, fallbacks)


def _changed_params(
    error: ProviderRequestError,
    params: dict[str, Any],
    request: LLMRequest,
    fallbacks: list[str],
) -> dict[str, Any]:
    """The request to send once more after ``error``, noting the change; else ``error`` stands."""
    found = fallback_for(error, params)
    if found is None:
        raise error
    change, changed = found
    fallbacks.append(change)
    _log.warning(
        "openai_request_fallback",
        fallback=change,
        status_code=error.status_code,
        vendor="openai",
        model=request.model,
        request_id=request.request_id,
    )
    return changed


def _new_async_client(key: _ClientKey) -> AsyncOpenAI:
    """An async client on the SDK's aiohttp transport.

    Measured against the emulator, a call costs about a third less CPU over aiohttp than over the
    default httpx2 stack, and batch runs are CPU-bound on exactly this (scripts/bench/batch.py).
    """
    from openai import AsyncOpenAI, DefaultAioHttpClient

    client = AsyncOpenAI(
        api_key=key[0],
        base_url=key[1],
        max_retries=0,
        http_client=DefaultAioHttpClient(**async_client_options()),
    )
    if grounding_debug_enabled():
        _log.debug("openai_client_created", kind="async")
    return client


async def _close_async_client(client: AsyncOpenAI) -> None:
    await client.close()


def _client_key(settings: RouterSettings) -> _ClientKey:
    """The client's key and base URL; a missing key is a configuration error, before any call."""
    secret = settings.openai_api_key
    key = secret.get_secret_value().strip() if secret is not None else ""
    if not key:
        raise ConfigurationError(
            f"OpenAI: no API key; set {KEY_SETTING} (or GROUNDING_ROUTER_{KEY_SETTING})",
            setting=KEY_SETTING,
            vendor="openai",
        )
    return key, settings.openai_base_url or None


def _timeout(request: LLMRequest, settings: RouterSettings) -> float:
    return sdk_timeout_s(request.timeout_s or settings.timeout_s)


if TYPE_CHECKING:  # mypy proves that the class satisfies the router's adapter protocols
    _satisfies_protocol: StreamingAdapter = OpenAIAdapter()
