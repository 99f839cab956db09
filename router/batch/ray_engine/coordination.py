"""The two small actors a Ray batch job shares between its routing actors and the driver.

:class:`SharedRateLimits` holds one limit per vendor and credential for the whole job, so
``max_rps`` caps the job's request rate per key, however many actors and nodes run it.
:class:`JobProgress` counts the lines the read task read and skipped, splits the job's
concurrency between the routing actors running now, and numbers the actors (each takes the entry
of the credential pools its number gives). Both live on the driver's node: if that node goes,
the job goes with it anyway.
"""

from __future__ import annotations

import math
import time

from router.batch.limits import RateLimits

__all__ = ["JobProgress", "SharedRateLimits"]

_RUNNING_S = 60.0  # an actor that asked for no block for this long no longer counts


class SharedRateLimits:
    """One request-rate limit per vendor and credential (:mod:`router.batch.limits`); every
    routing actor waits here before each attempt of a call, retries included."""

    def __init__(self, max_rps: float) -> None:
        self._limits = RateLimits(max_rps)

    async def acquire(self, key: str) -> None:
        """Return when ``key`` may make one more request."""
        await self._limits.acquire(key)

    def granted(self) -> dict[str, int]:
        """Requests let through so far, per key."""
        return dict(self._limits.granted)


class JobProgress:
    """The input lines the read task has read so far, and how many of them it skipped as
    committed by an earlier run: the job's total and skipped counts (the driver reads no input).
    """

    def __init__(self) -> None:
        self._lines = 0
        self._skipped = 0
        self._seen: dict[str, float] = {}
        self._numbers: dict[str, int] = {}

    def share(self, actor: str, concurrency: int) -> int:
        """``actor``'s share of the job's ``concurrency``: split between the routing actors
        that asked in the last minute (the pool running now; an autoscaled pool grows)."""
        now = time.monotonic()
        self._seen[actor] = now
        self._seen = {a: t for a, t in self._seen.items() if now - t < _RUNNING_S}
        return max(1, math.ceil(concurrency / len(self._seen)))

    def number(self, actor: str) -> int:
        """``actor``'s number in the job: 0, 1, ... in the order the actors first asked."""
        return self._numbers.setdefault(actor, len(self._numbers))

    def read(self, lines: int, skipped: int) -> None:
        self._lines += lines
        self._skipped += skipped

    def snapshot(self) -> tuple[int, int]:
        """(lines read, lines skipped) so far."""
        return self._lines, self._skipped
