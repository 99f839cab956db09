"""The two small actors a Ray batch job shares between its routing actors and the driver.

:class:`SharedRateLimits` holds one token bucket per vendor for the whole job, so ``max_rps``
caps the job's request rate, however many actors and nodes run it. :class:`JobProgress` counts
rows as the write tasks write them, for the progress display. Both live on the driver's node: if
that node goes, the job goes with it anyway.
"""

from __future__ import annotations

from collections import Counter

from router.batch.limits import RateLimits

__all__ = ["JobProgress", "SharedRateLimits"]


class SharedRateLimits:
    """One request-rate limiter per vendor; every routing actor waits here before a call."""

    def __init__(self, max_rps: float) -> None:
        self._limits = RateLimits(max_rps)
        self._granted: Counter[str] = Counter()

    async def acquire(self, vendor: str) -> None:
        """Return when ``vendor`` may take one more request."""
        async with self._limits.for_vendor(vendor):
            self._granted[vendor] += 1

    def granted(self) -> dict[str, int]:
        """Requests let through so far, per vendor."""
        return dict(self._granted)


class JobProgress:
    """Outcome counts of the rows written so far (what the progress display shows)."""

    def __init__(self) -> None:
        self._outcomes: Counter[str] = Counter()

    def record(self, outcomes: Counter[str]) -> None:
        self._outcomes.update(outcomes)

    def snapshot(self) -> Counter[str]:
        return self._outcomes
