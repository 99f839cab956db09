"""google-genai clients for Vertex AI, created lazily and reused.

One client per combination of the settings that shape it (project, location, endpoint,
access token, default timeout), so one adapter serves any settings. :class:`GenAIClients` holds
the clients of either API of this package by such a key; ``gemini_clients`` makes the Gemini
Developer API's. Async use gets clients of
its own per running event loop: the SDK's async HTTP sessions belong to the loop they were
opened on, so ``asyncio.run`` called twice must not share them.

Credentials: ``GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN`` when set (a static OAuth token, never
refreshed), else Application Default Credentials as Google's SDK finds them, at the first
request. SDK retries are off: ``HttpRetryOptions(attempts=1)``. Async clients run on an aiohttp
session the adapter owns (see ``new_async_http``); close them with ``aclose()`` on their loop,
or let the loop close them as it shuts down the way ``asyncio.run`` does
(``adapters.sdk.loop_clients``).
"""

from __future__ import annotations

import importlib
import threading
import urllib.request
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from adapters.sdk.http_clients import aiohttp_session_options, sdk_timeout_s, sync_client
from adapters.sdk.loop_clients import LoopClients
from router.errors import ConfigurationError
from router.logging import register_secret
from router.settings import RouterSettings

if TYPE_CHECKING:
    from google.genai import Client
    from google.genai.client import AsyncClient

__all__ = ["GenAIClients", "VertexClients", "http_options", "new_async_http", "timeout_ms"]

K = TypeVar("K", bound=Hashable)

_MAX_CONNECTIONS = 1000


def timeout_ms(seconds: float) -> int:
    """google-genai counts timeouts in milliseconds."""
    return max(1, round(seconds * 1000))


class _ClientKey(NamedTuple):
    project: str
    location: str
    base_url: str | None
    access_token: str | None
    timeout_ms: int


def _client_key(settings: RouterSettings) -> _ClientKey:
    """The settings that shape a client; a missing project is a configuration error."""
    project = (settings.google_cloud_project or "").strip()
    if not project:
        raise ConfigurationError(
            "Vertex AI needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT",
            setting="GOOGLE_CLOUD_PROJECT",
            vendor="vertex",
        )
    location = settings.google_cloud_location.strip()
    if not location:
        raise ConfigurationError(
            "Vertex AI needs a location (such as 'global' or 'us-central1'): set "
            "GOOGLE_CLOUD_LOCATION",
            setting="GOOGLE_CLOUD_LOCATION",
            vendor="vertex",
        )
    token = settings.vertex_access_token
    access_token = token.get_secret_value().strip() if token is not None else ""
    return _ClientKey(
        project=project,
        location=location,
        base_url=settings.vertex_base_url or None,
        access_token=access_token or None,
        timeout_ms=timeout_ms(sdk_timeout_s(settings.timeout_s)),
    )


def http_options(
    *,
    base_url: str | None,
    timeout_ms: int,
    sync_http: Any,
    async_http: Any,
    api_version: str | None = None,
) -> Any:
    """google-genai's ``HttpOptions`` for one client of either API: one attempt (the router
    retries), and the HTTP stacks given, ours, so calls honour their limits and follow no
    redirect."""
    from google.genai import types

    return types.HttpOptions(
        base_url=base_url,
        api_version=api_version,
        timeout=timeout_ms,
        retry_options=types.HttpRetryOptions(attempts=1),
        httpx_client=sync_http,
        aiohttp_client=async_http,
        async_client_args={"allow_redirects": False},
    )


def _new_client(key: _ClientKey, *, async_http: Any = None, sync_http: Any = None) -> Client:
    from google import genai

    credentials = None
    if key.access_token is not None:
        from google.oauth2.credentials import Credentials

        # Known to the redaction from here on, so provider text that quotes it is cleaned even
        # when the adapter is used without a router (which registers the settings' secrets).
        register_secret(key.access_token)

        # google-auth ships no type hints for this constructor.
        credentials = Credentials(token=key.access_token)  # type: ignore[no-untyped-call]
    try:
        return genai.Client(
            vertexai=True,
            project=key.project,
            location=key.location,
            credentials=credentials,
            http_options=http_options(
                base_url=key.base_url,
                timeout_ms=key.timeout_ms,
                sync_http=sync_http,
                async_http=async_http,
            ),
        )
    except ValueError as exc:  # the SDK validates its arguments, and says what it wants
        raise ConfigurationError(
            f"Vertex AI client could not be created: {exc}", vendor="vertex"
        ) from exc


def new_async_http() -> Any:
    """The aiohttp session of one event loop, owned (and closed) by the adapter.

    google-genai runs async calls over aiohttp when it is installed; over aiohttp a call costs
    about 40% less CPU than over httpx2, and batch runs are CPU-bound on exactly this
    (scripts/bench/batch.py). The session is ours rather than the SDK's, so it is opened on the
    loop that uses it and closed there, and the SDK's own session (a subclass of
    ``ClientSession``, which aiohttp warns about) is never made. Like the openai client, it
    allows up to 1,000 connections.
    """
    import aiohttp

    return aiohttp.ClientSession(
        trust_env=_proxy_configured(),
        connector=aiohttp.TCPConnector(limit=_MAX_CONNECTIONS),
        **aiohttp_session_options(),
    )


def _proxy_configured() -> bool:
    """Whether the environment names an HTTP(S) proxy, which the session must then honour.

    aiohttp's ``trust_env`` looks the proxy variables and ~/.netrc up again on every request, in
    worker threads, at a cost of about half a millisecond of CPU per call; with no proxy set
    there is nothing for it to find, so it stays off.
    """
    proxies = urllib.request.getproxies()
    return any(proxies.get(scheme) for scheme in ("http", "https"))


class _AsyncEntry(NamedTuple):
    client: Client
    http: Any


async def _close_async_entry(entry: _AsyncEntry) -> None:
    await entry.client.aio.aclose()
    await entry.http.close()
    entry.client.close()


class GenAIClients(Generic[K]):
    """The clients one adapter holds; safe to use from many threads and event loops.

    ``key_of`` reads the settings that shape a client (raising ``ConfigurationError`` when one
    is missing); ``new_client(key, async_http=..., sync_http=...)`` makes the client for a key,
    on the HTTP client given (google-genai leaves the sync one to us: see
    :mod:`adapters.sdk.http_clients`).
    """

    def __init__(
        self, key_of: Callable[[RouterSettings], K], new_client: Callable[..., Client]
    ) -> None:
        # The SDK is imported with the adapter, so no call's deadline pays for the import.
        importlib.import_module("google.genai")
        self._key_of = key_of
        self._new_client = new_client
        self._lock = threading.Lock()
        # Each sync client with the httpx client it runs on, which google-genai leaves to us.
        self._sync: dict[K, tuple[Client, Any]] = {}
        self._async = LoopClients(self._new_async_entry, _close_async_entry)

    def _new_async_entry(self, key: K) -> _AsyncEntry:
        http = new_async_http()
        return _AsyncEntry(self._new_client(key, async_http=http), http)

    def sync_client(self, settings: RouterSettings) -> Client:
        """The client for ``settings``, created on first use."""
        key = self._key_of(settings)
        with self._lock:
            entry = self._sync.get(key)
            if entry is None:
                import httpx2

                http = sync_client(httpx2.Client)
                entry = self._sync[key] = (self._new_client(key, sync_http=http), http)
            return entry[0]

    def async_client(self, settings: RouterSettings) -> AsyncClient:
        """The async client for ``settings`` on the running event loop, created on first use."""
        return self._async.get(self._key_of(settings)).client.aio

    def close(self) -> None:
        """Close the sync clients, and the async ones of loops that are not running."""
        with self._lock:
            clients = list(self._sync.values())
            self._sync.clear()
        for client, http in clients:
            client.close()
            http.close()
        self._async.close_idle()

    async def aclose(self) -> None:
        """Close the async clients of the running event loop."""
        await self._async.aclose()


class VertexClients(GenAIClients[_ClientKey]):
    """The Vertex AI clients of one adapter."""

    def __init__(self) -> None:
        super().__init__(_client_key, _new_client)
