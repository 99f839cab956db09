"""Closing what belongs to an event loop when that loop shuts down.

Async SDK clients belong to the loop they were created on. A caller that runs
``asyncio.run(router.aroute(request))`` never calls ``aclose()``, and without help the clients'
pooled connections outlive the loop: the garbage collector closes their sockets later, with an
"unclosed socket" ResourceWarning each. ``asyncio.run`` (like ``asyncio.Runner`` and the test
runners built on it) calls ``loop.shutdown_asyncgens()`` before closing the loop, which finalises
every async generator started on that loop while the loop still runs: the ``finally`` of such a
generator is a shutdown hook that can still await.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import suppress
from typing import Any, cast

__all__ = ["at_loop_shutdown"]


async def _until_shutdown(close: Callable[[], Awaitable[None]]) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await close()


def at_loop_shutdown(close: Callable[[], Awaitable[None]]) -> AsyncGenerator[None, None]:
    """Have the running loop await ``close()`` when it shuts down its async generators.

    The loop holds the returned hook only weakly: keep it referenced for as long as it should
    fire. A loop closed without that shutdown step (a hand-run loop) drops it unrun.
    """
    hook = _until_shutdown(close)
    first_step = cast(Any, hook.asend(None))
    with suppress(StopIteration):  # it runs to the ``yield``; the loop's first-iteration hook
        first_step.send(None)  # adopts it on the way
    return hook
