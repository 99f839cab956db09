"""The stream events under their old module name, for the provider stream readers.

The events live in :mod:`router.streaming.events`; the adapters still import them from here until
their own imports move (then this module goes).
"""

from __future__ import annotations

from router.streaming.events import (
    CitationDelta,
    Completed,
    EventBuffer,
    SearchStarted,
    StreamEvent,
    TextDelta,
)

__all__ = ["CitationDelta", "Completed", "EventBuffer", "SearchStarted", "StreamEvent", "TextDelta"]
