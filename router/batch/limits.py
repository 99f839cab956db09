"""Request-rate limits per vendor and credential, shared by the batch runner and its workers.

A limit of ``max_rps`` lets requests of one key (a vendor and the credential it is called with)
through at least ``1 / max_rps`` seconds apart, so no 1-second window holds more than
``max_rps`` + 1 of them. (A token bucket of ``max_rps`` tokens, as aiolimiter's, lets a full
bucket through at once and then refills: up to twice the rate within one second.)

:class:`GatedAdapter` wraps each vendor's adapter of a router so that every attempt waits for
its turn, retries included, once the adapter (and its SDK) is ready: a turn taken before that
would let the requests queued behind an SDK's first import out at once. The wait is within the
call's deadline, so ``concurrency / max_rps`` should stay well below ``timeout_s``.
:meth:`RateLimits.for_vendors` waits for one turn per vendor before a request (the local
engine's gate, which its retries do not pass).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, get_args

from router.types import Vendor

if TYPE_CHECKING:
    from adapters.base import Adapter, AdapterResult
    from router.router import Router
    from router.settings import RouterSettings
    from router.types import LLMRequest

__all__ = ["GatedAdapter", "RateLimits", "credential_key", "gated_adapters"]

Acquire = Callable[[str], Awaitable[None]]
Clock = Callable[[], float]
AsyncSleep = Callable[[float], Awaitable[None]]

_CREDENTIALS: dict[str, tuple[str, ...]] = {
    "openai": ("openai_api_key",),
    "anthropic": ("anthropic_api_key",),
    "vertex": ("google_cloud_project", "google_cloud_location", "vertex_access_token"),
    "gemini": ("gemini_api_key",),
    "perplexity": ("perplexity_api_key",),
    "openrouter": ("openrouter_api_key",),
}


def credential_key(settings: RouterSettings, vendor: str) -> str:
    """The key ``vendor``'s limit is kept under: the vendor and a digest of its credential
    (never the secret itself), so requests on different keys or projects are limited apart."""
    digest = hashlib.blake2b(digest_size=6)
    for name in _CREDENTIALS.get(vendor, ()):
        value = getattr(settings, name, None)
        secret = getattr(value, "get_secret_value", None)
        digest.update(repr(secret() if secret is not None else value).encode())
    return f"{vendor}:{digest.hexdigest()}"


class RateLimits:
    """One request-rate limit per key, or none at all; ``clock`` and ``sleep`` are injectable
    so tests control time."""

    def __init__(
        self,
        max_rps: float | None,
        *,
        clock: Clock = time.monotonic,
        sleep: AsyncSleep = asyncio.sleep,
    ) -> None:
        if max_rps is not None and max_rps <= 0:
            raise ValueError(f"max_rps must be positive, not {max_rps}")
        self._interval = None if max_rps is None else 1.0 / max_rps
        self._clock = clock
        self._sleep = sleep
        self._next: dict[str, float] = {}
        self.granted: Counter[str] = Counter()

    async def acquire(self, key: str) -> None:
        """Return when ``key`` may make one more request (at once without a limit)."""
        if self._interval is None:
            return
        now = self._clock()
        at = max(now, self._next.get(key, now))
        self._next[key] = at + self._interval  # taken before waiting: callers queue in order
        self.granted[key] += 1
        if at > now:
            await self._sleep(at - now)

    @asynccontextmanager
    async def for_vendors(self, vendors: Iterable[str]) -> AsyncIterator[None]:
        """Entered once each key in ``vendors`` allows one more request (a line asking several
        vendors spends one of each)."""
        for key in vendors:
            await self.acquire(key)
        yield


class GatedAdapter:
    """A vendor's adapter whose every attempt passes the rate limit of ``key``.

    Its first call goes alone: an SDK makes its client on first use, and calls let through
    while it does would leave together once it is made.
    """

    def __init__(self, inner: Callable[[], Adapter], key: str, acquire: Acquire) -> None:
        self._inner = inner
        self._key = key
        self._acquire = acquire
        self._first: asyncio.Lock | None = None
        self._warm = False

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        if self._warm:
            await self._acquire(self._key)
            return await self._inner().acomplete(request, settings)
        if self._first is None:  # made on the event loop the calls run on
            self._first = asyncio.Lock()
        async with self._first:
            adapter = self._inner()
            await self._acquire(self._key)
            try:
                return await adapter.acomplete(request, settings)
            finally:
                self._warm = True

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        # Batch jobs route asynchronously; a blocking call here could not wait for its turn.
        raise NotImplementedError("a rate-limited batch adapter routes asynchronously only")

    def close(self) -> None:
        """The wrapped adapters belong to the router that made them, which closes them."""

    async def aclose(self) -> None:
        """As :meth:`close`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner(), name)


def gated_adapters(
    builder: Router, settings: RouterSettings, acquire: Acquire
) -> dict[Vendor, Adapter]:
    """Adapters for a router (``Router(settings, adapters=...)``) that gate every attempt;
    each made by ``builder`` on its first call, under its vendor's :func:`credential_key`."""
    adapters: dict[Vendor, Adapter] = {}
    for vendor in get_args(Vendor):

        def inner(vendor: Vendor = vendor) -> Adapter:
            return builder.adapter_for(vendor)

        adapters[vendor] = GatedAdapter(inner, credential_key(settings, vendor), acquire)
    return adapters
