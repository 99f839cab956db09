"""Request-rate limits per vendor, shared by the batch runner and its worker processes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiolimiter import AsyncLimiter

__all__ = ["RateLimits"]


class RateLimits:
    """One request-rate limiter per vendor, or none at all."""

    def __init__(self, max_rps: float | None) -> None:
        if max_rps is not None and max_rps <= 0:
            raise ValueError(f"max_rps must be positive, not {max_rps}")
        self._max_rps = max_rps
        self._limiters: dict[str, AsyncLimiter] = {}

    def for_vendor(self, vendor: str) -> AbstractAsyncContextManager[Any]:
        """Entered once the vendor's rate allows one more request."""
        if self._max_rps is None:
            return nullcontext()
        return self._limiter(vendor, self._max_rps)

    @asynccontextmanager
    async def for_vendors(self, vendors: Iterable[str]) -> AsyncIterator[None]:
        """Entered once each vendor's rate allows one more request: a line asking several
        vendors spends one request of each."""
        if self._max_rps is not None:
            for vendor in vendors:
                await self._limiter(vendor, self._max_rps).acquire()
        yield

    def _limiter(self, vendor: str, max_rps: float) -> AsyncLimiter:
        limiter = self._limiters.get(vendor)
        if limiter is None:
            from aiolimiter import AsyncLimiter

            # A one-second bucket of max_rps: short bursts up to the rate, never above it.
            limiter = self._limiters[vendor] = AsyncLimiter(max_rps, 1.0)
        return limiter
