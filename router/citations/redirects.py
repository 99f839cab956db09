"""Optional resolution of opaque redirect URLs: network, SSRF-guarded, off by default.

Vertex grounding chunks point at ``vertexaisearch.cloud.google.com/grounding-api-redirect/...``;
the true source is only in the ``Location`` header that URL answers with. When settings turn
it on (``GROUNDING_ROUTER_RESOLVE_REDIRECTS=true``), the resolver learns that target so
``make_citation`` can derive the real domain. Google's terms restrict automated collection of
grounded links: the switch is the user's decision (see README).

What the resolver will do, and nothing more:

- only URLs on allow-listed redirector hosts (the opaque redirectors of ``REDIRECTORS`` by
  default), on the scheme's default port; anything else is answered None without a request;
- one GET per URL with redirects *not* followed; only the ``Location`` of a 301/302/303/307/308
  counts; no body is read;
- the redirector's addresses come from a DNS lookup whose answers are vetted before any
  connection, and the connection goes to a vetted address (an aiohttp resolver that returns only
  vetted addresses, so nothing re-resolves between check and connect); a target must resolve to
  public addresses only (``router.citations.addresses``), else it is refused;
- a short timeout, a bounded number of requests in flight, an in-memory cache with a TTL
  (failures are cached too, for a shorter time), no proxy from the environment; all of a
  call's resolutions end by the call's deadline (``timeout_s``), resolved or not;
- it never raises: any failure is None (the citation then falls back as DESIGN.md section 3 says).

The only loosening is ``_allow_loopback``, a private constructor argument for the resolver's own
tests against a loopback server: it lets the resolver connect to a loopback redirector on any
port, never accept a loopback target, and no setting or environment variable reaches it.
"""

from __future__ import annotations

import asyncio
import contextvars
import socket
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from router.call_limits import current_limits
from router.citations.addresses import IPAddress, is_public_address, parse_ip_literal
from router.citations.urls import REDIRECTORS, normalize_url, split_canonical_url
from router.logging import get_logger, grounding_debug_enabled
from router.settings import RouterSettings

if TYPE_CHECKING:
    from aiohttp import ClientSession

__all__ = ["DEFAULT_RESOLVABLE_HOSTS", "HostLookup", "RedirectResolver"]

_log = get_logger(__name__)

HostLookup = Callable[[str, int], Awaitable[list[str]]]
"""An async DNS lookup: (host, port) to address strings. The default asks the system resolver."""

DEFAULT_RESOLVABLE_HOSTS: frozenset[str] = frozenset(
    host
    for redirector in REDIRECTORS
    if redirector.opaque
    for host in redirector.hosts
    if not host.endswith(".*")
)

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_NEGATIVE_TTL_CAP_S = 300.0
_DEFAULT_MAX_CACHE_ENTRIES = 10_000
_USER_AGENT = "grounding-router redirect-resolver"
_DEFAULTS = RouterSettings.model_fields


class _Refused(Exception):
    """A resolution the guard refused or that failed; ``reason`` is a short log token."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def _system_lookup(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class RedirectResolver:
    """Learns where opaque redirect URLs lead, safely; a no-op unless enabled.

    Built from ``RouterSettings`` (``resolve_redirects`` and the ``resolver_*`` fields) or from
    explicit arguments, which win over settings. Built without settings, it is enabled: making
    one by hand is opting in. ``allowed_hosts`` replaces the default allow-list of redirector
    hosts. Only construction raises (``ValueError`` for a timeout or concurrency that would not
    bound anything); resolving never does.
    """

    def __init__(
        self,
        settings: RouterSettings | None = None,
        *,
        enabled: bool | None = None,
        timeout_s: float | None = None,
        max_concurrency: int | None = None,
        cache_ttl_s: float | None = None,
        negative_cache_ttl_s: float | None = None,
        allowed_hosts: Iterable[str] | None = None,
        max_cache_entries: int = _DEFAULT_MAX_CACHE_ENTRIES,
        _allow_loopback: bool = False,
        _lookup: HostLookup | None = None,
        _clock: Callable[[], float] = time.monotonic,
    ) -> None:
        def pick(explicit: Any, field: str) -> Any:
            if explicit is not None:
                return explicit
            if settings is not None:
                return getattr(settings, field)
            return _DEFAULTS[field].default

        self.enabled: bool = bool(
            enabled if enabled is not None else (settings is None or settings.resolve_redirects)
        )
        self.timeout_s: float = float(pick(timeout_s, "resolver_timeout_s"))
        self.max_concurrency: int = int(pick(max_concurrency, "resolver_max_concurrency"))
        if not self.timeout_s > 0 or self.max_concurrency < 1:
            # A zero timeout means "none" to aiohttp: a resolver must never wait unbounded.
            raise ValueError("RedirectResolver needs timeout_s > 0 and max_concurrency >= 1")
        self.cache_ttl_s: float = float(pick(cache_ttl_s, "resolver_cache_ttl_s"))
        self.negative_cache_ttl_s: float = (
            negative_cache_ttl_s
            if negative_cache_ttl_s is not None
            else min(self.cache_ttl_s, _NEGATIVE_TTL_CAP_S)
        )
        hosts = DEFAULT_RESOLVABLE_HOSTS if allowed_hosts is None else allowed_hosts
        self.allowed_hosts: frozenset[str] = frozenset(host.lower() for host in hosts)
        self._max_cache_entries = max_cache_entries
        self._allow_loopback = _allow_loopback
        self._lookup: HostLookup = _lookup or _system_lookup
        self._clock = _clock
        self._cache: OrderedDict[str, tuple[float, str | None]] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._semaphores = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return (
            f"RedirectResolver(enabled={self.enabled}, timeout_s={self.timeout_s}, "
            f"max_concurrency={self.max_concurrency}, cache_ttl_s={self.cache_ttl_s}, "
            f"allowed_hosts={len(self.allowed_hosts)})"
        )

    # -- public API ---------------------------------------------------------------------------

    async def resolve(self, url: str) -> str | None:
        """The canonical target of one redirect URL, or None (disabled, refused, failed)."""
        return (await self.resolve_many([url])).get(url)

    async def resolve_many(self, urls: Iterable[str]) -> dict[str, str]:
        """Targets of many redirect URLs, keyed by the URL as given; only the resolved ones."""
        wanted = list(dict.fromkeys(url for url in urls if isinstance(url, str)))
        if not self.enabled or not wanted:
            return {}
        resolved: dict[str, str] = {}
        to_fetch: dict[str, list[str]] = {}
        for url in wanted:
            canonical = normalize_url(url)
            if canonical is None or not self._allowed(canonical):
                continue
            canonical = canonical.partition("#")[0]  # never sent: one request per resource
            hit, target = self._cached(canonical)
            if hit:
                if target is not None:
                    resolved[url] = target
                continue
            to_fetch.setdefault(canonical, []).append(url)
        if to_fetch:
            try:
                targets = await self._fetch_all(list(to_fetch), _budget_s())
            except Exception as exc:  # never into the route: no session, no event loop, ...
                _log.warning("redirect_resolver_failed", error=type(exc).__name__)
                targets = {}
            for canonical, target in targets.items():
                if target is not None:
                    for url in to_fetch[canonical]:
                        resolved[url] = target
        if grounding_debug_enabled():
            _log.debug(
                "redirects_resolved",
                requested=len(wanted),
                fetched=len(to_fetch),
                resolved=len(resolved),
            )
        return resolved

    def resolve_many_sync(self, urls: Iterable[str]) -> dict[str, str]:
        """``resolve_many`` for synchronous callers, also from inside a running event loop."""
        batch = list(urls)
        if not self.enabled or not batch:
            return {}
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.resolve_many(batch))
        # A sync adapter called from async code: run the lookups on a loop of their own, in
        # this context (the call's deadline bounds them there too).
        context = contextvars.copy_context()
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="redirect-resolver") as pool:
            return pool.submit(context.run, asyncio.run, self.resolve_many(batch)).result()

    def clear_cache(self) -> None:
        """Forget every cached answer."""
        with self._cache_lock:
            self._cache.clear()

    # -- cache --------------------------------------------------------------------------------

    def _cached(self, canonical: str) -> tuple[bool, str | None]:
        with self._cache_lock:
            entry = self._cache.get(canonical)
            if entry is None:
                return False, None
            expires_at, target = entry
            if self._clock() >= expires_at:
                del self._cache[canonical]
                return False, None
            self._cache.move_to_end(canonical)
            return True, target

    def _remember(self, canonical: str, target: str | None) -> None:
        ttl = self.cache_ttl_s if target is not None else self.negative_cache_ttl_s
        if ttl <= 0:
            return
        with self._cache_lock:
            self._cache[canonical] = (self._clock() + ttl, target)
            self._cache.move_to_end(canonical)
            while len(self._cache) > self._max_cache_entries:
                self._cache.popitem(last=False)

    # -- the guarded fetch --------------------------------------------------------------------

    def _allowed(self, canonical: str) -> bool:
        parts = split_canonical_url(canonical)
        if parts is None or parts.host not in self.allowed_hosts:
            return False
        # Redirectors serve on their scheme's default port; another port only for the loopback
        # test server (its port is picked by the system).
        return parts.port is None or self._allow_loopback

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        semaphore = self._semaphores.get(loop)
        if semaphore is None:
            semaphore = self._semaphores[loop] = asyncio.Semaphore(self.max_concurrency)
        return semaphore

    async def _connectable_addresses(self, host: str, port: int) -> list[IPAddress]:
        """Addresses of the redirector host that may be connected to (vetted, then pinned)."""
        return await self._vetted_addresses(host, port, allow_loopback=self._allow_loopback)

    async def _vetted_addresses(
        self, host: str, port: int, *, allow_loopback: bool = False
    ) -> list[IPAddress]:
        """The host's addresses when every one of them is allowed; else ``_Refused``."""
        literal = parse_ip_literal(host)
        if literal is not None:
            addresses = [literal]
        else:
            try:
                answers = await asyncio.wait_for(self._lookup(host, port), self.timeout_s)
            except (OSError, TimeoutError) as exc:
                raise _Refused("dns_failed") from exc
            parsed = [parse_ip_literal(answer) for answer in answers]
            addresses = [address for address in parsed if address is not None]
            if not addresses or len(addresses) != len(parsed):
                raise _Refused("dns_failed")
        if not all(is_public_address(a, allow_loopback=allow_loopback) for a in addresses):
            raise _Refused("non_public_address")
        return addresses

    async def _fetch_all(
        self, canonicals: list[str], budget_s: float | None
    ) -> dict[str, str | None]:
        """Fetch every URL; what is still unresolved after ``budget_s`` seconds stays None."""
        import aiohttp

        connector = aiohttp.TCPConnector(
            resolver=_vetting_resolver(self._connectable_addresses),
            use_dns_cache=False,
            limit=self.max_concurrency,
        )
        async with aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=self.timeout_s),
            trust_env=False,
            headers={"User-Agent": _USER_AGENT},
        ) as session:
            tasks = [asyncio.ensure_future(self._fetch_one(session, url)) for url in canonicals]
            done, pending = await asyncio.wait(tasks, timeout=budget_s)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
                _log.warning(
                    "redirects_unresolved_at_deadline",
                    resolved=len(done),
                    unresolved=len(pending),
                    budget_s=budget_s,
                )
        return {
            url: task.result() if task in done and not task.cancelled() else None
            for url, task in zip(canonicals, tasks, strict=True)
        }

    async def _fetch_one(self, session: ClientSession, canonical: str) -> str | None:
        host = _host(canonical)
        try:
            async with self._semaphore():
                target = await self._location(session, canonical)
        except _Refused as refused:
            if grounding_debug_enabled():
                _log.debug("redirect_unresolved", host=host, reason=refused.reason)
            target = None
        except Exception as exc:  # timeouts, connection errors, malformed answers
            if grounding_debug_enabled():
                _log.debug("redirect_unresolved", host=host, reason=type(exc).__name__)
            target = None
        self._remember(canonical, target)
        return target

    async def _location(self, session: ClientSession, canonical: str) -> str:
        host = _host(canonical)
        if parse_ip_literal(host) is not None:
            # aiohttp connects to an address literal without asking the resolver: vet it here.
            await self._connectable_addresses(host, 0)
        async with session.get(canonical, allow_redirects=False) as response:
            if response.status not in _REDIRECT_STATUSES:
                raise _Refused(f"status_{response.status}")
            location = response.headers.get("Location")
        if not location:
            raise _Refused("no_location")
        target = normalize_url(urljoin(canonical, location.strip()))
        if target is None:
            raise _Refused("target_not_http")
        target_parts = split_canonical_url(target)
        if target_parts is None:
            raise _Refused("target_not_http")
        # The target is never connected to, but it must not point inward either: it is handed
        # to callers as the citation's URL. The test-only loopback allowance does not apply.
        await self._vetted_addresses(target_parts.host, target_parts.port or 0)
        return target


def _budget_s() -> float | None:
    """What the current call's deadline leaves for resolving (None outside a call).

    Each resolution has its own short timeout, but many links, a few at a time, would add up
    far past the call's ``timeout_s``: whatever is unresolved when it ends stays unresolved.
    """
    limits = current_limits()
    return None if limits is None else limits.remaining()


def _host(canonical: str) -> str:
    parts = split_canonical_url(canonical)
    return parts.host if parts is not None else ""


def _vetting_resolver(
    vetted_addresses: Callable[[str, int], Awaitable[list[IPAddress]]],
) -> Any:
    """An aiohttp resolver that hands out only vetted addresses (built lazily: aiohttp is
    imported only when the resolver is used)."""
    from aiohttp.abc import AbstractResolver, ResolveResult

    class VettingResolver(AbstractResolver):
        async def resolve(
            self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
        ) -> list[ResolveResult]:
            del family  # every vetted address is offered; aiohttp picks what it can reach
            try:
                addresses = await vetted_addresses(host, port)
            except _Refused as refused:
                raise OSError(f"redirect resolver refused {host}: {refused.reason}") from None
            return [
                ResolveResult(
                    hostname=host,
                    host=str(address),
                    port=port,
                    family=socket.AF_INET6 if address.version == 6 else socket.AF_INET,
                    proto=0,
                    flags=socket.AI_NUMERICHOST | socket.AI_NUMERICSERV,
                )
                for address in addresses
            ]

        async def close(self) -> None:
            return None

    return VettingResolver()
