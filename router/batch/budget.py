"""A spending limit on a run: once the estimated cost of the answers so far passes it, the run is
stopped as Ctrl-C stops it (no new request is fed, those in flight finish), so the final spend
may pass the limit by what was in flight.

The estimate is the run's own (:mod:`router.batch.spend`, list prices) in one currency; answers
whose model has no price add nothing to it, which the summary reports as unpriced.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from router.batch.stats import BatchStats
from router.logging import get_logger

__all__ = ["CostLimit"]

log = get_logger(__name__)


@dataclass
class CostLimit:
    """Sets ``stop`` (from any thread) the first time a run's spend in ``currency`` passes
    ``limit``; call it with the run's statistics after each row, as a progress callback is."""

    limit: float
    stop: asyncio.Event
    loop: asyncio.AbstractEventLoop
    currency: str = "USD"
    then: Callable[[BatchStats], None] | None = None
    spent: float = 0.0
    reached: bool = field(default=False, init=False)

    def __call__(self, stats: BatchStats) -> None:
        if self.then is not None:
            self.then(stats)
        self.spent = sum(
            totals.total
            for totals in stats.spend.by_model.values()
            if totals.currency == self.currency
        )
        if self.reached or self.spent <= self.limit:
            return
        self.reached = True
        log.warning("batch_cost_limit_reached", spent=round(self.spent, 6), limit=self.limit)
        self.loop.call_soon_threadsafe(self.stop.set)
