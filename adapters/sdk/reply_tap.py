"""One hook on the replies the SDKs read: the bytes of each, as read, for whoever asks.

``grounding-router route --save-replies`` and ``batch --save-replies`` keep each provider reply
(decompressed, otherwise as the provider sent it: a JSON body or an event stream) so that it
can be replayed with ``extract`` instead of paying for the call again. A caller sets an
observer for a scope with :func:`observing_replies`; the HTTP clients of
:mod:`adapters.sdk.http_clients` ask :func:`reply_writer` for a writer when a reply starts and
hand it every piece they read. Outside such a scope nothing is asked, and nothing is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["ReplyObserver", "ReplyWriter", "observing_replies", "reply_writer"]

ReplyWriter = Callable[[bytes], None]
"""Takes each piece of one reply's body, in order."""

ReplyObserver = Callable[[str], ReplyWriter | None]
"""Given a reply's URL, the writer of its body, or None to keep nothing of it."""

_OBSERVER: ContextVar[ReplyObserver | None] = ContextVar("reply_observer", default=None)


@contextmanager
def observing_replies(observer: ReplyObserver) -> Iterator[None]:
    """Have ``observer`` see every reply read in this context (tasks started in it included)."""
    token = _OBSERVER.set(observer)
    try:
        yield
    finally:
        _OBSERVER.reset(token)


def reply_writer(url: str) -> ReplyWriter | None:
    """The writer of a reply starting now, from the observer of this context (if any)."""
    observer = _OBSERVER.get()
    return observer(url) if observer is not None else None
