"""Turns of a shared rate-limit schedule taken in a spawned process, as batch workers take them."""

from __future__ import annotations

import time
from typing import Any

from router.batch.limits import SharedSchedule

__all__ = ["take_turns"]


def take_turns(
    schedule: SharedSchedule, start: Any, results: Any, *, key: str, count: int, interval: float
) -> None:
    """Once every process is at the ``start`` barrier, take ``count`` turns of ``key`` one after
    another, without waiting for them; put their times on ``results``."""
    start.wait()
    results.put([schedule.take(key, time.monotonic(), interval) for _ in range(count)])
