"""Request-rate limits per vendor and credential, shared by the batch runner and its workers.

A limit of ``max_rps`` lets requests of one key (a vendor and the credential it is called with)
through at least ``1 / max_rps`` seconds apart, so no 1-second window holds more than
``max_rps`` + 1 of them. (A token bucket of ``max_rps`` tokens, as aiolimiter's, lets a full
bucket through at once and then refills: up to twice the rate within one second.)

:class:`GatedAdapter` wraps each vendor's adapter of a router so that every attempt waits for
its turn, retries included, once the adapter (and its SDK) is ready: a turn taken before that
would let the requests queued behind an SDK's first import out at once. The wait is not the
provider's: the call's deadline (``timeout_s``) is paused for it and starts again once the turn
comes, so a long queue behind a low ``max_rps`` never ends in deadline errors.
:func:`limited` gives a router whose every attempt is gated so (the local engine's), and
:class:`SharedSchedule` keeps the turns of the local engine's worker processes in shared memory,
so that they share one limit per key as the Ray engine's actors share theirs.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from multiprocessing.context import BaseContext
from typing import TYPE_CHECKING, Any, Protocol, get_args

from router.call_limits import current_limits
from router.credential_pools import CREDENTIAL_FIELDS
from router.settings import pool_entry_settings
from router.types import Vendor

if TYPE_CHECKING:
    from adapters.base import Adapter, AdapterResult
    from router.router import Router
    from router.settings import RouterSettings
    from router.types import LLMRequest

__all__ = [
    "GatedAdapter",
    "RateLimits",
    "Schedule",
    "SharedSchedule",
    "credential_key",
    "gated_adapters",
    "limited",
]

Acquire = Callable[[str], Awaitable[None]]
Clock = Callable[[], float]
AsyncSleep = Callable[[float], Awaitable[None]]


def credential_key(settings: RouterSettings, vendor: str) -> str:
    """The key ``vendor``'s limit is kept under: the vendor and a digest of its credential
    (never the secret itself), so requests on different keys or projects are limited apart."""
    digest = hashlib.blake2b(digest_size=6)
    for name in CREDENTIAL_FIELDS.get(vendor, ()):
        value = getattr(settings, name, None)
        secret = getattr(value, "get_secret_value", None)
        digest.update(repr(secret() if secret is not None else value).encode())
    return f"{vendor}:{digest.hexdigest()}"


class Schedule(Protocol):
    """Where the next free time of each key is kept: in this process, or shared."""

    def take(self, key: str, now: float, interval: float) -> float:
        """The time ``key``'s next request may start (``now`` or later); the one after it may
        start ``interval`` later."""
        ...


class _LocalSchedule:
    """The next free time of each key, in this process."""

    def __init__(self) -> None:
        self._next: dict[str, float] = {}

    def take(self, key: str, now: float, interval: float) -> float:
        at = max(now, self._next.get(key, now))
        self._next[key] = at + interval
        return at


class SharedSchedule:
    """The next free time of each key in shared memory: one limit across worker processes.

    Made in the parent for a fixed set of keys (:meth:`for_settings`: every vendor's
    :func:`credential_key`, one for each entry of its credential pool) and handed to each
    spawned worker. Each turn is taken under one lock, on ``time.monotonic``, which every
    process of the machine reads alike. It also counts the turns given per key, in all
    processes together.
    """

    def __init__(self, keys: Sequence[str], context: BaseContext) -> None:
        self._slots = {key: index for index, key in enumerate(keys)}
        self._next = context.Array("d", len(keys))
        self._granted = context.Array("q", len(keys), lock=False)  # under _next's lock

    @classmethod
    def for_settings(cls, settings: RouterSettings, context: BaseContext) -> SharedSchedule:
        """A schedule for every vendor called with ``settings``' credentials, or with those of
        any entry of its credential pool (router.credential_pools)."""
        entries = max((len(pool) for pool in settings.credential_pools.values()), default=1)
        keys = {
            credential_key(pool_entry_settings(settings, index), vendor): None
            for index in range(entries)
            for vendor in get_args(Vendor)
        }
        return cls(list(keys), context)

    def take(self, key: str, now: float, interval: float) -> float:
        index = self._slots[key]
        with self._next.get_lock():
            at = max(now, float(self._next[index]))
            self._next[index] = at + interval
            self._granted[index] += 1
        return at

    def granted(self) -> dict[str, int]:
        """Turns given so far, per key that was given any."""
        with self._next.get_lock():
            counts = {key: self._granted[index] for key, index in self._slots.items()}
        return {key: count for key, count in counts.items() if count}


class RateLimits:
    """One request-rate limit per key, or none at all; ``clock`` and ``sleep`` are injectable
    so tests control time. ``schedule`` keeps the turns (this process's own by default);
    ``granted`` counts those this process was given."""

    def __init__(
        self,
        max_rps: float | None,
        *,
        clock: Clock = time.monotonic,
        sleep: AsyncSleep = asyncio.sleep,
        schedule: Schedule | None = None,
    ) -> None:
        if max_rps is not None and max_rps <= 0:
            raise ValueError(f"max_rps must be positive, not {max_rps}")
        self._interval = None if max_rps is None else 1.0 / max_rps
        self._clock = clock
        self._sleep = sleep
        self._schedule = schedule if schedule is not None else _LocalSchedule()
        self.granted: Counter[str] = Counter()

    @property
    def active(self) -> bool:
        """Whether there is a limit to wait for."""
        return self._interval is not None

    async def acquire(self, key: str) -> None:
        """Return when ``key`` may make one more request (at once without a limit)."""
        if self._interval is None:
            return
        now = self._clock()
        at = self._schedule.take(key, now, self._interval)  # before waiting: callers queue in order
        self.granted[key] += 1
        if at > now:
            await self._sleep(at - now)


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
            await self._turn()
            return await self._inner().acomplete(request, settings)
        if self._first is None:  # made on the event loop the calls run on
            self._first = asyncio.Lock()
        async with self._first:
            adapter = self._inner()
            await self._turn()
            try:
                return await adapter.acomplete(request, settings)
            finally:
                self._warm = True

    async def _turn(self) -> None:
        limits = current_limits()
        if limits is None:
            await self._acquire(self._key)
            return
        async with limits.paused():
            await self._acquire(self._key)

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


def limited(router: Router, limits: RateLimits) -> Router:
    """``router`` with every attempt of every call waiting for its turn under ``limits``,
    retries and fallbacks included (``router`` itself when there is no limit). ``router``
    still makes, owns and closes the adapters."""
    if not limits.active:
        return router
    return router.with_adapters(gated_adapters(router, router.settings, limits.acquire))
