"""Capture the library's log events in a test, as ``structlog.testing.capture_logs`` does for
structlog's global configuration (which the library never uses: see ``router.logging``)."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from typing import Any

from structlog.testing import LogCapture
from structlog.typing import Processor

from router.logging import LIBRARY_PROCESSORS

__all__ = ["capture_logs"]


@contextmanager
def capture_logs(
    processors: list[Processor] | None = None,
) -> Iterator[list[MutableMapping[str, Any]]]:
    """Every library event emitted inside the block, at every level, as its field dict.

    ``processors`` run first (e.g. ``merge_contextvars``); the chain is restored afterwards.
    """
    capture = LogCapture()
    saved = list(LIBRARY_PROCESSORS)
    LIBRARY_PROCESSORS[:] = [*(processors or []), capture]
    try:
        yield capture.entries
    finally:
        LIBRARY_PROCESSORS[:] = saved
