"""Calls through an SDK of the ``openai`` family (``openai``, ``anthropic``), shared by the
providers reached with one.

Both SDKs are generated from one design: a client class and its async twin taking ``api_key``,
``base_url``, ``max_retries`` and an ``http_client``, a generic ``post`` with ``cast_to``,
``stream`` and ``stream_cls``, and ``Stream`` / ``AsyncStream`` event decoders. What the
providers share is here: clients created lazily and reused, keyed by what shapes them (API key
and base URL), so one adapter serves any settings from any thread; HTTP stacks from
:mod:`adapters.sdk.http_clients` (bounded by the call's deadline and reply limit, following no
redirect); async clients on the SDK's aiohttp transport, kept per running event loop
(:mod:`adapters.sdk.loop_clients`); SDK retries off (the router's retry layer owns retries); and
every call's errors translated at the boundary by the provider's own translation. The SDK is
imported when the adapter is made (on a vendor's first use, never by ``import router``), so no
call's deadline pays for the import (``import anthropic`` alone takes over a second on a cold,
loaded machine).

Calls go through the client's documented generic ``post`` with the prepared body and
``cast_to=object``: the parameters are already plain JSON and the mappers read plain dicts, so
the SDK's per-call transform of typed parameters and its response models (built only to be
dumped again) are skipped, while authentication, timeouts and the SDK's errors are unchanged.
Streams take the same route with ``stream=True``: the SDK decodes the event stream and hands
each event's data over as the plain dict it is.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pydantic import SecretStr

from adapters.sdk.errors import ApiService
from adapters.sdk.http_clients import async_client_options, sync_client
from adapters.sdk.loop_clients import LoopClients
from router.errors import ConfigurationError
from router.logging import get_logger, grounding_debug_enabled

__all__ = ["ClientKey", "SdkCalls", "SdkClasses", "Translate", "client_key"]

_log = get_logger(__name__)

# What shapes a client: the API key and the base URL (None: the SDK's default endpoint).
ClientKey = tuple[str, str | None]
# The provider's error translation for a call made with this API key (removed from messages).
Translate = Callable[[str], AbstractContextManager[None]]


@dataclass(frozen=True, slots=True)
class SdkClasses:
    """Where an SDK's clients are: its module and the names of its sync and async clients."""

    module: str
    client: str
    async_client: str


def client_key(service: ApiService, secret: SecretStr | None, base_url: str | None) -> ClientKey:
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


class SdkCalls:
    """The clients of one adapter, and its calls to ``service`` through the ``sdk``."""

    def __init__(
        self,
        sdk: SdkClasses,
        service: ApiService,
        translate: Translate,
        *,
        default_base_url: str | None = None,
    ) -> None:
        self.service = service
        self._sdk = sdk
        self._sdk_module: ModuleType = importlib.import_module(sdk.module)
        self._translate = translate
        self._default_base_url = default_base_url
        self._lock = threading.Lock()
        self._clients: dict[ClientKey, Any] = {}
        self._async_clients: LoopClients[ClientKey, Any] = LoopClients(
            self._new_async_client, _close_async_client
        )

    def post(self, key: ClientKey, path: str, body: dict[str, Any], timeout: float) -> object:
        """POST ``body`` to ``path`` once; the reply's JSON as plain data."""
        client = self._client(key)
        with self._translate(key[0]):
            reply: object = client.post(
                path, body=body, cast_to=object, options={"timeout": timeout}
            )
            return reply

    async def apost(
        self, key: ClientKey, path: str, body: dict[str, Any], timeout: float
    ) -> object:
        """The async twin of :meth:`post`."""
        client = self._async_clients.get(key)
        with self._translate(key[0]):
            reply: object = await client.post(
                path, body=body, cast_to=object, options={"timeout": timeout}
            )
            return reply

    def stream(
        self, key: ClientKey, path: str, body: dict[str, Any], timeout: float
    ) -> Iterator[dict[str, Any]]:
        """POST ``body`` as a stream once; yield its events' data as dicts."""
        stream_class = self._sdk_module.Stream
        client = self._client(key)
        with self._translate(key[0]):
            events = client.post(
                path,
                body={**body, "stream": True},
                cast_to=object,
                stream=True,
                stream_cls=stream_class[object],
                options={"timeout": timeout},
            )
        try:
            with self._translate(key[0]):
                for event in events:
                    if isinstance(event, dict):
                        yield event
        finally:
            events.close()

    async def astream(
        self, key: ClientKey, path: str, body: dict[str, Any], timeout: float
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        stream_class = self._sdk_module.AsyncStream
        client = self._async_clients.get(key)
        with self._translate(key[0]):
            events = await client.post(
                path,
                body={**body, "stream": True},
                cast_to=object,
                stream=True,
                stream_cls=stream_class[object],
                options={"timeout": timeout},
            )
        try:
            with self._translate(key[0]):
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

    def _client(self, key: ClientKey) -> Any:
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                sdk = self._sdk_module
                client = self._clients[key] = getattr(sdk, self._sdk.client)(
                    api_key=key[0],
                    base_url=key[1] or self._default_base_url,
                    max_retries=0,
                    http_client=sync_client(sdk.DefaultHttpxClient),
                )
                if grounding_debug_enabled():
                    _log.debug(
                        f"{self._sdk.module}_client_created",
                        vendor=self.service.vendor,
                        kind="sync",
                        clients=len(self._clients),
                    )
            return client

    def _new_async_client(self, key: ClientKey) -> Any:
        """An async client on the SDK's aiohttp transport.

        Measured against the emulator, a call costs about a third less CPU over aiohttp than over
        the default httpx2 stack, and batch runs are CPU-bound on exactly this
        (scripts/bench/batch.py).
        """
        sdk = self._sdk_module
        client = getattr(sdk, self._sdk.async_client)(
            api_key=key[0],
            base_url=key[1] or self._default_base_url,
            max_retries=0,
            http_client=sdk.DefaultAioHttpClient(**async_client_options()),
        )
        if grounding_debug_enabled():
            _log.debug(
                f"{self._sdk.module}_client_created", vendor=self.service.vendor, kind="async"
            )
        return client


async def _close_async_client(client: Any) -> None:
    await client.close()
