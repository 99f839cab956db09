"""The limits of one provider call: one total deadline, and the most a reply may hold.

**Deadline.** ``timeout_s`` bounds the whole call. The SDKs' timeouts bound each wait for the
network, so a provider or proxy that trickles its
headers, its body or its chunk framing, or keeps sending ``100 Continue``, keeps a call alive
for as long as it likes. The router instead gives every provider call (one attempt: every HTTP
exchange of it, a two-step call's both steps and its redirect resolution included) one
:class:`CallLimits` whose deadline is ``timeout_s`` seconds away, made current with
:func:`limits_scope`:

- async calls run under ``asyncio.timeout`` for what the deadline leaves (:func:`run_within`);
- sync calls cannot be interrupted from outside, so their transports ask the current deadline
  before every read, write and connect and wait no longer than it leaves
  (:func:`bounded_timeout`; ``adapters.http_clients`` wires that into the SDKs' HTTP clients);
- a stream is bounded the same way, item by item (:func:`iterate_within`,
  :func:`aiterate_within`), for callers that consume a provider's stream.

**Reply size.** ``max_reply_bytes`` bounds a reply's body once decompressed; transports count
what they read with :func:`count_reply_bytes` (a gzip bomb of 510 KB that unpacks to 512 MB is
cut at the limit, never held whole). **Citations.** ``max_citations`` bounds the citations one
reply gives (``router.citations.CitationCollector`` reads it) and ``max_debug_events`` the
forensic events it logs (``router.logging.grounding_debug_enabled``).

**Chosen deadlines.** Inside :func:`deadlines_chosen_by`, each call's deadline is what a given
function makes of its ``timeout_s``: a test gives a faulted first attempt a short deadline and
its retry a long one, so the retry's answer never races a deadline the test did not mean to test.

When a limit ends a call, ``CallLimits.fired`` names it, and the router reports the limit's
error (:meth:`CallLimits.error`): ``ProviderTransientError(reason="deadline")``, which says so
apart from an SDK's own per-read timeout (``reason="timeout"``), or
``ResponseParseError(reason="reply_too_large")``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import TypeVar

from router.errors import ProviderTransientError, ResponseParseError, RouterError
from router.settings import RouterSettings
from router.types import LLMRequest

__all__ = [
    "CallLimits",
    "DeadlineExceeded",
    "ReplyTooLarge",
    "aiterate_within",
    "bounded_timeout",
    "count_reply_bytes",
    "current_limits",
    "deadline_s",
    "deadlines_chosen_by",
    "iterate_within",
    "limits_for",
    "limits_scope",
    "note_timeout",
    "run_within",
]

T = TypeVar("T")

_CURRENT: ContextVar[CallLimits | None] = ContextVar("provider_call_limits", default=None)

DeadlineChoice = Callable[[LLMRequest, float], float]
"""Given a request and its ``timeout_s`` in seconds, the deadline of its next provider call."""

_CHOICE: ContextVar[DeadlineChoice | None] = ContextVar("provider_call_deadlines", default=None)


class DeadlineExceeded(TimeoutError):
    """The current deadline has passed (raised by the helpers of this module)."""


class ReplyTooLarge(Exception):
    """A reply grew past ``max_reply_bytes`` while it was read."""


class CallLimits:
    """The limits of one provider call, from now: a deadline ``seconds`` away, the largest reply
    (``max_reply_bytes``, decompressed), the most citations and forensic events per reply.

    ``fired`` names the limit that ended the call (``"deadline"`` or ``"reply_size"``).
    """

    __slots__ = (
        "_clock",
        "_expires_at",
        "_timer",
        "citations_cut",
        "debug_events",
        "fired",
        "max_citations",
        "max_debug_events",
        "max_reply_bytes",
        "seconds",
    )

    def __init__(
        self,
        seconds: float,
        *,
        max_reply_bytes: int | None = None,
        max_citations: int | None = None,
        max_debug_events: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.max_reply_bytes = max_reply_bytes
        self.max_citations = max_citations
        self.max_debug_events = max_debug_events
        self.debug_events = 0
        self.citations_cut = 0
        self._clock = clock
        self._expires_at = clock() + seconds
        self._timer: asyncio.Timeout | None = None  # run_within's, while it awaits the call
        self.fired: str | None = None

    @asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """No deadline inside the block, and a whole one from its end: the time spent there
        (a rate-limit turn waited for) is not the provider's, so it does not count against
        ``timeout_s``."""
        if self._timer is not None:
            self._timer.reschedule(None)
        try:
            yield
        finally:
            self._expires_at = self._clock() + self.seconds
            if self._timer is not None:
                self._timer.reschedule(asyncio.get_running_loop().time() + self.seconds)

    def remaining(self) -> float:
        """Seconds left, never below zero."""
        return max(0.0, self._expires_at - self._clock())

    def expired(self) -> bool:
        """Whether no time is left."""
        return self._clock() >= self._expires_at

    def error(self, label: str, vendor: str) -> RouterError | None:
        """The router's error for the limit that ended the call, or None if none did."""
        if self.fired == "deadline":  # transient: a retry may get a faster answer
            return ProviderTransientError(
                f"{label}: no complete reply within the call's deadline of {self.seconds:g} s "
                "(timeout_s); the provider or a proxy sent it too slowly, or not at all",
                vendor=vendor,
                reason="deadline",
            )
        if self.fired == "reply_size":  # the same request would get the same reply
            return ResponseParseError(
                f"{label}: the reply is larger than {self.max_reply_bytes:,} bytes once "
                "decompressed (GROUNDING_ROUTER_MAX_REPLY_BYTES); it was not read further",
                vendor=vendor,
                reason="reply_too_large",
            )
        return None


def deadline_s(request: LLMRequest, settings: RouterSettings) -> float:
    """How long one call of ``request`` may take: its own ``timeout_s``, else the settings'."""
    return request.timeout_s or settings.timeout_s


def limits_for(request: LLMRequest, settings: RouterSettings) -> CallLimits:
    """The limits of one call of ``request``, from now (a deadline of its ``timeout_s``, or what
    the current :func:`deadlines_chosen_by` makes of it)."""
    seconds = deadline_s(request, settings)
    choose = _CHOICE.get()
    return CallLimits(
        seconds if choose is None else choose(request, seconds),
        max_reply_bytes=settings.max_reply_bytes,
        max_citations=settings.max_citations,
        max_debug_events=settings.max_debug_events if settings.debug_grounding else None,
    )


def current_limits() -> CallLimits | None:
    """The limits of the provider call running in this context, if any."""
    return _CURRENT.get()


@contextmanager
def limits_scope(limits: CallLimits) -> Iterator[CallLimits]:
    """Make ``limits`` current inside the block (thread- and task-local)."""
    token = _CURRENT.set(limits)
    try:
        yield limits
    finally:
        _CURRENT.reset(token)


@contextmanager
def deadlines_chosen_by(choose: DeadlineChoice) -> Iterator[None]:
    """Inside the block (thread- and task-local), each provider call made, retries and redirect
    resolution included, gets the deadline ``choose(request, timeout_s)``. Choose one no longer
    than ``timeout_s``: the SDKs' own timeouts still follow ``timeout_s`` (``sdk_timeout_s``)."""
    token = _CHOICE.set(choose)
    try:
        yield
    finally:
        _CHOICE.reset(token)


def count_reply_bytes(total: int) -> None:
    """A transport has read ``total`` bytes of a reply (decompressed) so far: past the current
    ``max_reply_bytes``, ``ReplyTooLarge``."""
    limits = _CURRENT.get()
    if limits is None or limits.max_reply_bytes is None or total <= limits.max_reply_bytes:
        return
    limits.fired = "reply_size"
    raise ReplyTooLarge(f"the reply is larger than {limits.max_reply_bytes:,} bytes")


def bounded_timeout(timeout: float | None) -> float | None:
    """``timeout`` cut to what the current deadline leaves; ``DeadlineExceeded`` when none is
    left. For transports to call before each blocking read, write or connect."""
    limits = _CURRENT.get()
    if limits is None:
        return timeout
    left = limits.remaining()
    if left <= 0:
        limits.fired = limits.fired or "deadline"
        raise DeadlineExceeded(f"the call's deadline of {limits.seconds:g} s has passed")
    return left if timeout is None else min(timeout, left)


def note_timeout() -> None:
    """A transport's wait timed out: if the current deadline is why, it has fired."""
    limits = _CURRENT.get()
    if limits is not None and limits.expired():
        limits.fired = limits.fired or "deadline"


async def run_within(limits: CallLimits, call: Callable[[], Awaitable[T]]) -> T:
    """Await ``call()`` in ``limits``' scope, cancelled at its deadline (``DeadlineExceeded``)."""
    with limits_scope(limits):
        timer = asyncio.timeout(limits.remaining())
        outer, limits._timer = limits._timer, timer
        try:
            async with timer:
                return await call()
        except Exception as exc:
            if timer.expired():
                limits.fired = limits.fired or "deadline"
                raise DeadlineExceeded(
                    f"the call's deadline of {limits.seconds:g} s has passed"
                ) from exc
            raise
        finally:
            limits._timer = outer


def iterate_within(limits: CallLimits, items: Iterator[T]) -> Iterator[T]:
    """``items`` with each ``next()`` run in ``limits``' scope (so transports see the deadline),
    ending with ``DeadlineExceeded`` once it passes."""
    while True:
        with limits_scope(limits):
            if limits.expired():
                limits.fired = limits.fired or "deadline"
                raise DeadlineExceeded(f"the call's deadline of {limits.seconds:g} s has passed")
            try:
                item = next(items)
            except StopIteration:
                return
        yield item


async def aiterate_within(limits: CallLimits, items: AsyncIterator[T]) -> AsyncIterator[T]:
    """``items`` with each step bounded by what ``limits``' deadline leaves."""
    while True:
        try:
            item = await run_within(limits, items.__anext__)
        except StopAsyncIteration:
            return
        yield item
