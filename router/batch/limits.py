"""Request-rate limits per vendor, shared by the batch runner and its worker processes."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

__all__ = ["RateLimits"]


class RateLimits:
    """One request-rate limiter per vendor, or none at all."""

    def __init__(self, max_rps: float | None) -> None:
        if max_rps is not None and max_rps <= 0:
            raise ValueError(f"max_rps must be positive, not {max_rps}")
        self._max_rps = max_rps
        self._limiters: dict[str, AbstractAsyncContextManager[Any]] = {}

    def for_vendor(self, vendor: str) -> AbstractAsyncContextManager[Any]:
        if self._max_rps is None:
            return nullcontext()
        limiter = self._limiters.get(vendor)
        if limiter is None:
            from aiolimiter import AsyncLimiter

            # A one-second bucket of max_rps: short bursts up to the rate, never above it.
            limiter = self._limiters[vendor] = AsyncLimiter(self._max_rps, 1.0)
        return limiter
