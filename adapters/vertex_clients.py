"""google-genai clients for Vertex AI, created lazily and reused.

One client per combination of the settings that shape it (project, location, endpoint,
access token, default timeout), so one adapter serves any settings. Async use gets clients of
its own per running event loop: the SDK's async HTTP sessions belong to the loop they were
opened on, so ``asyncio.run`` called twice must not share them.

Credentials: ``GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN`` when set (a static OAuth token, never
refreshed), else Application Default Credentials as Google's SDK finds them, at the first
request. SDK retries are off: ``HttpRetryOptions(attempts=1)``. Async clients run on an httpx2
transport rather than the aiohttp one google-genai picks when aiohttp is installed (that path
retries a dropped connection on its own after sleeping 1-10 s, and warns on every session).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import TYPE_CHECKING, NamedTuple

from router.errors import ConfigurationError
from router.settings import RouterSettings

if TYPE_CHECKING:
    from google.genai import Client
    from google.genai.client import AsyncClient

__all__ = ["VertexClients", "timeout_ms"]


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
        timeout_ms=timeout_ms(settings.timeout_s),
    )


def _new_client(key: _ClientKey, *, for_async: bool = False) -> Client:
    from google import genai
    from google.genai import types

    async_client_args = None
    if for_async:
        import httpx2

        # With aiohttp installed (the redirect resolver uses it) google-genai would run async
        # calls over aiohttp: a second transport with its own exceptions, its own hidden
        # connection retry, and a DeprecationWarning on every session it opens. Giving it an
        # httpx2 transport keeps async calls on the same stack as sync ones.
        async_client_args = {"transport": httpx2.AsyncHTTPTransport()}

    credentials = None
    if key.access_token is not None:
        from google.oauth2.credentials import Credentials

        # google-auth ships no type hints for this constructor.
        credentials = Credentials(token=key.access_token)  # type: ignore[no-untyped-call]
    try:
        return genai.Client(
            vertexai=True,
            project=key.project,
            location=key.location,
            credentials=credentials,
            http_options=types.HttpOptions(
                base_url=key.base_url,
                timeout=key.timeout_ms,
                retry_options=types.HttpRetryOptions(attempts=1),
                async_client_args=async_client_args,
            ),
        )
    except ValueError as exc:  # the SDK validates its arguments, and says what it wants
        raise ConfigurationError(
            f"Vertex AI client could not be created: {exc}", vendor="vertex"
        ) from exc


class VertexClients:
    """The clients one adapter holds; safe to use from many threads and event loops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sync: dict[_ClientKey, Client] = {}
        self._async: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[_ClientKey, Client]
        ] = weakref.WeakKeyDictionary()

    def sync_client(self, settings: RouterSettings) -> Client:
        """The client for ``settings``, created on first use."""
        key = _client_key(settings)
        with self._lock:
            client = self._sync.get(key)
            if client is None:
                client = self._sync[key] = _new_client(key)
            return client

    def async_client(self, settings: RouterSettings) -> AsyncClient:
        """The async client for ``settings`` on the running event loop, created on first use."""
        key = _client_key(settings)
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = self._async.setdefault(loop, {})
            client = clients.get(key)
            if client is None:
                client = clients[key] = _new_client(key, for_async=True)
            return client.aio

    def close(self) -> None:
        """Close every sync client, and the sync side of the async ones (async sessions are
        closed by :meth:`aclose` on their loop, or die with it)."""
        with self._lock:
            clients = list(self._sync.values())
            for per_loop in self._async.values():
                clients.extend(per_loop.values())
            self._sync.clear()
        for client in clients:
            client.close()

    async def aclose(self) -> None:
        """Close the async clients of the running event loop."""
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = list(self._async.pop(loop, {}).values())
        for client in clients:
            await client.aio.aclose()
            client.close()
