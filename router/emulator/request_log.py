"""What the emulator received, kept for assertions from any thread."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["RecordedRequest", "RequestLog"]


@dataclass(frozen=True)
class RecordedRequest:
    """One received request: what came in and which fault, if any, it was given."""

    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    """Header names in lower case."""
    body: bytes
    json: Any
    """The parsed JSON body, or None when the body was not JSON."""
    api: str | None
    """The name of the API that served the path (``openai``, ...), None for a path none serves."""
    fault: str | None
    """The fault spec applied to this attempt, in canonical form (``429:2*1``)."""


class RequestLog:
    """A bounded, thread-safe record of received requests, oldest first."""

    def __init__(self, limit: int) -> None:
        self._entries: deque[RecordedRequest] = deque(maxlen=limit)
        self._received = 0
        self._changed = threading.Condition()

    def add(self, entry: RecordedRequest) -> None:
        with self._changed:
            self._entries.append(entry)
            self._received += 1
            self._changed.notify_all()

    def wait_for(self, count: int, timeout: float) -> bool:
        """Block until ``count`` requests have arrived since the last clear; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: self._received >= count, timeout)

    def snapshot(self) -> list[RecordedRequest]:
        with self._changed:
            return list(self._entries)

    def clear(self) -> None:
        with self._changed:
            self._entries.clear()
            self._received = 0
