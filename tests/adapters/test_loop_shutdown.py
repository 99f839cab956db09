"""at_loop_shutdown: what a loop owns is closed when the loop shuts down as asyncio.run does."""

from __future__ import annotations

import asyncio
import gc

from adapters.sdk.loop_shutdown import at_loop_shutdown


class Closable:
    """Counts how often it was closed, and on which loop."""

    def __init__(self) -> None:
        self.closed_on: list[asyncio.AbstractEventLoop] = []

    async def aclose(self) -> None:
        await asyncio.sleep(0)  # a real close awaits the network
        self.closed_on.append(asyncio.get_running_loop())


def test_asyncio_run_awaits_the_hook_on_its_own_loop() -> None:
    """The hook runs once, on the loop it was registered on, before that loop closes."""
    resource = Closable()
    hooks = []

    async def main() -> asyncio.AbstractEventLoop:
        hooks.append(at_loop_shutdown(resource.aclose))
        return asyncio.get_running_loop()

    loop = asyncio.run(main())
    assert resource.closed_on == [loop]


def test_hook_does_not_run_before_shutdown() -> None:
    """Registering runs nothing: the close waits for the loop's shutdown."""
    resource = Closable()
    seen_before_shutdown: list[int] = []

    async def main() -> None:
        hook = at_loop_shutdown(resource.aclose)
        await asyncio.sleep(0)
        gc.collect()
        seen_before_shutdown.append(len(resource.closed_on))
        del hook

    asyncio.run(main())
    assert seen_before_shutdown == [0]


def test_loop_closed_without_shutdown_drops_the_hook_quietly() -> None:
    """A hand-run loop closed without shutting down its generators never runs the hook."""
    resource = Closable()
    loop = asyncio.new_event_loop()

    async def register() -> object:
        return at_loop_shutdown(resource.aclose)

    hook = loop.run_until_complete(register())
    loop.close()
    del hook
    gc.collect()
    assert resource.closed_on == []
