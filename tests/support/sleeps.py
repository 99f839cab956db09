"""The retry layer's sleep, recording the waits instead of waiting (no test sleeps)."""

from __future__ import annotations

__all__ = ["RecordedSleeps"]


class RecordedSleeps:
    """Pass as ``sleep`` and ``asleep``; :attr:`waits` holds every wait asked for, in order."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)

    async def asleep(self, seconds: float) -> None:
        self.waits.append(seconds)
