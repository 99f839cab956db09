"""Calls through the ``openai`` SDK to one OpenAI-compatible service, shared by its providers.

OpenAI itself, OpenRouter and Perplexity are all reached with the ``openai`` client; what they
share is here: clients created lazily and reused, keyed by what shapes them (API key and base
URL), so one adapter serves any settings from any thread; HTTP stacks from
:mod:`adapters.http_clients` (bounded by the call's deadline and reply limit, following no
redirect); async clients on the SDK's aiohttp transport, kept per running event loop
(:mod:`adapters.loop_clients`); SDK retries off (the
router's retry layer owns retries); and every call's errors translated at the boundary
(:mod:`adapters.openai_errors`) under the service's names.

Calls go through the client's documented generic ``post`` with the prepared body and
``cast_to=object``: the parameters are already plain JSON and the mappers read plain dicts, so
the SDK's per-call transform of typed parameters and its response models (built only to be
dumped again) are skipped, while authentication, timeouts and the SDK's errors are unchanged.
Streams take the same route with ``stream=True``: the SDK decodes the event stream and hands
each event's data over as the plain dict it is.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import structlog
from pydantic import SecretStr

from adapters.http_clients import async_client_options, sync_client
from adapters.loop_clients import LoopClients
from adapters.openai_errors import OpenAIService, translate_openai_errors
from router.errors import ConfigurationError
from router.logging import grounding_debug_enabled

if TYPE_CHECKING:
    from openai import AsyncOpenAI, OpenAI

__all__ = ["ClientKey", "OpenAICalls", "client_key"]

_log = structlog.get_logger(__name__)

# What shapes a client: the API key and the base URL (None: the SDK's default endpoint).
ClientKey = tuple[str, str | None]


def client_key(service: OpenAIService, secret: SecretStr | None, base_url: str | None) -> ClientKey:
    """The client's key and base URL; a missing key is a configuration error, before any call."""
    key = secret.get_secret_value().strip() if secret is not None else ""
    if not key:
        setting = service.key_setting
        raise ConfigurationError(
            f"{service.label}: no API key; set {setting} (or GROUNDING_ROUTER_{setting})",
            setting=setting,
            vendor=service.vendor,
        )
    return key, base_url or None


class OpenAICalls:
    """The ``openai`` clients of one adapter, and its calls to ``service``."""

    def __init__(self, service: OpenAIService, *, default_base_url: str | None = None) -> None:
        self.service = service
        self._default_base_url = default_base_url
        self._lock = threading.Lock()
        self._clients: dict[ClientKey, OpenAI] = {}
        self._async_clients: LoopClients[ClientKey, AsyncOpenAI] = LoopClients(
            self._new_async_client, _close_async_client
        )

    def post(self, key: ClientKey, path: str, body: dict[str, Any], timeout: float) -> object:
        """POST ``body`` to ``path`` once; the reply's JSON as plain data."""
        client = self._client(key)
        with translate_openai_errors(secret=key[0], service=self.service):
            return client.post(path, body=body, cast_to=object, options={"timeout": timeout})

    async def apost(
        self, key: ClientKey, path: str, body: dict[str, Any], timeout: float
    ) -> object:
        """The async twin of :meth:`post`."""
        client = self._async_clients.get(key)
        with translate_openai_errors(secret=key[0], service=self.service):
            return await client.post(path, body=body, cast_to=object, options={"timeout": timeout})

    def stream(
        self, key: ClientKey, path: str, body: dict[str, Any], timeout: float
    ) -> Iterator[dict[str, Any]]:
        """POST ``body`` as a stream once; yield its events' data as dicts."""
        from openai import Stream

        client = self._client(key)
        with translate_openai_errors(secret=key[0], service=self.service):
            events = client.post(
                path,
                body={**body, "stream": True},
                cast_to=object,
                stream=True,
                stream_cls=Stream[object],
                options={"timeout": timeout},
            )
        try:
            with translate_openai_errors(secret=key[0], service=self.service):
                for event in events:
                    if isinstance(event, dict):
                        yield event
        finally:
            events.close()

    async def astream(
        self, key: ClientKey, path: str, body: dict[str, Any], timeout: float
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        from openai import AsyncStream

        client = self._async_clients.get(key)
        with translate_openai_errors(secret=key[0], service=self.service):
            events = await client.post(
                path,
                body={**body, "stream": True},
                cast_to=object,
                stream=True,
                stream_cls=AsyncStream[object],
                options={"timeout": timeout},
            )
        try:
            with translate_openai_errors(secret=key[0], service=self.service):
                async for event in events:
                    if isinstance(event, dict):
                        yield event
        finally:
            await events.close()

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

    def _client(self, key: ClientKey) -> OpenAI:
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                from openai import DefaultHttpxClient, OpenAI

                client = self._clients[key] = OpenAI(
                    api_key=key[0],
                    base_url=key[1] or self._default_base_url,
                    max_retries=0,
                    http_client=sync_client(DefaultHttpxClient),
                )
                if grounding_debug_enabled():
                    _log.debug(
                        "openai_client_created",
                        vendor=self.service.vendor,
                        kind="sync",
                        clients=len(self._clients),
                    )
            return client

    def _new_async_client(self, key: ClientKey) -> AsyncOpenAI:
        """An async client on the SDK's aiohttp transport.

        Measured against the emulator, a call costs about a third less CPU over aiohttp than over
        the default httpx2 stack, and batch runs are CPU-bound on exactly this
        (scripts/bench/batch.py).
        """
        from openai import AsyncOpenAI, DefaultAioHttpClient

        client = AsyncOpenAI(
            api_key=key[0],
            base_url=key[1] or self._default_base_url,
            max_retries=0,
            http_client=DefaultAioHttpClient(**async_client_options()),
        )
        if grounding_debug_enabled():
            _log.debug("openai_client_created", vendor=self.service.vendor, kind="async")
        return client


async def _close_async_client(client: AsyncOpenAI) -> None:
    await client.close()
