"""The router's one retry layer: transient provider errors only, backoff with jitter.

SDK retries are switched off in every adapter, so attempts never multiply. A provider's
``Retry-After`` is honoured when it is at most ``retry_after_cap_s``; a longer one ends the
retries at once (the caller, or the batch runner, is better placed to come back later than a
call that blocks for minutes). The sleep functions are injectable so tests never wait.

The first attempt runs outside tenacity: most calls succeed at once, and setting up a retry
loop (the async one inspects every callback it is given) cost a routed call more CPU than
assembling its response. A first attempt that fails transiently is handed to the loop as its
attempt 1, so waits, stops, logs and retry events are what tenacity alone would give.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    wait_exponential_jitter,
)

from router.errors import ProviderTransientError
from router.logging import get_logger
from router.settings import RouterSettings
from router.tracing import record_retry

__all__ = ["AsyncSleep", "RetryPolicy", "Sleep"]

T = TypeVar("T")
Sleep = Callable[[float], None]
AsyncSleep = Callable[[float], Awaitable[None]]

log = get_logger(__name__)


class RetryPolicy:
    """Run a provider call under the retry rules of ``settings``; report the attempts it took."""

    def __init__(
        self,
        settings: RouterSettings,
        *,
        sleep: Sleep = time.sleep,
        async_sleep: AsyncSleep = asyncio.sleep,
    ) -> None:
        self._settings = settings
        self._sleep = sleep
        self._async_sleep = async_sleep
        self._backoff = wait_exponential_jitter(
            initial=settings.retry_initial_delay_s,
            max=settings.retry_max_delay_s,
            jitter=settings.retry_initial_delay_s,
        )

    def _options(self) -> dict[str, Any]:
        """What the sync and async retry loops share: all but the sleep."""
        return {
            "retry": retry_if_exception_type(ProviderTransientError),
            "stop": self._stop,
            "wait": self._wait,
            "before_sleep": self._before_sleep,
            "after": self._count_attempts,
            "reraise": True,
        }

    def call(self, attempt: Callable[[], T]) -> tuple[T, int]:
        """Call ``attempt`` until it succeeds or retries run out; return (result, attempts)."""
        try:
            return attempt(), 1
        except ProviderTransientError as error:
            first = error
        retrying = Retrying(sleep=self._sleep, **self._options())
        result = retrying(_replaying(first, attempt))
        return result, int(retrying.statistics["attempt_number"])

    async def acall(self, attempt: Callable[[], Awaitable[T]]) -> tuple[T, int]:
        """The async twin of :meth:`call`."""
        try:
            return await attempt(), 1
        except ProviderTransientError as error:
            first = error
        retrying = AsyncRetrying(sleep=self._async_sleep, **self._options())
        result: T = await retrying(_areplaying(first, attempt))
        return result, int(retrying.statistics["attempt_number"])

    def _stop(self, state: RetryCallState) -> bool:
        if state.attempt_number >= self._settings.max_attempts:
            return True
        error = _transient_error(state)
        cap = self._settings.retry_after_cap_s
        return error is not None and error.retry_after_s is not None and error.retry_after_s > cap

    def _wait(self, state: RetryCallState) -> float:
        error = _transient_error(state)
        if error is not None and error.retry_after_s is not None:
            return max(0.0, error.retry_after_s)
        return float(self._backoff(state))

    def _before_sleep(self, state: RetryCallState) -> None:
        error = _transient_error(state)
        record_retry(state.attempt_number, state.upcoming_sleep, error)
        log.info(
            "provider_call_retrying",
            # The attempt about to start, of how many at most: "attempt 2/3 after 0.5 s".
            attempt=f"{state.attempt_number + 1}/{self._settings.max_attempts}",
            wait_s=round(state.upcoming_sleep, 3),
            vendor=error.vendor if error else None,
            status_code=error.status_code if error else None,
            reason=error.reason if error else None,
        )

    @staticmethod
    def _count_attempts(state: RetryCallState) -> None:
        error = _transient_error(state)
        if error is not None:
            error.attempts = state.attempt_number


def _replaying(first: ProviderTransientError, attempt: Callable[[], T]) -> Callable[[], T]:
    """``attempt``, whose first call raises ``first`` again: the failure already met."""
    pending = [first]

    def replay() -> T:
        if pending:
            raise pending.pop()
        return attempt()

    return replay


def _areplaying(
    first: ProviderTransientError, attempt: Callable[[], Awaitable[T]]
) -> Callable[[], Awaitable[T]]:
    """The async twin of :func:`_replaying`."""
    pending = [first]

    async def replay() -> T:
        if pending:
            raise pending.pop()
        return await attempt()

    return replay


def _transient_error(state: RetryCallState) -> ProviderTransientError | None:
    outcome = state.outcome
    if outcome is None or not outcome.failed:
        return None
    error = outcome.exception()
    return error if isinstance(error, ProviderTransientError) else None
