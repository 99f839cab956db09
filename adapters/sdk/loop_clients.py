"""Async SDK clients kept per event loop and per key, closed with the loop they belong to.

An async client's connections belong to the loop it was created on, so ``asyncio.run`` called
twice must not share one. Each loop gets its own clients, created on first use; they are closed
by ``aclose()`` on that loop, by the loop itself when it shuts down the way ``asyncio.run`` does
(``adapters.sdk.loop_shutdown``), or by ``close_idle()`` from outside any running loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from adapters.sdk.loop_shutdown import at_loop_shutdown

__all__ = ["LoopClients"]

K = TypeVar("K", bound=Hashable)
C = TypeVar("C")


class LoopClients(Generic[K, C]):
    """``create(key)`` once per running loop and key; ``close(client)`` awaited on that loop."""

    def __init__(self, create: Callable[[K], C], close: Callable[[C], Awaitable[None]]) -> None:
        self._create = create
        self._close = close
        self._lock = threading.Lock()
        self._clients: dict[asyncio.AbstractEventLoop, dict[K, C]] = {}
        self._shutdown_hooks: dict[asyncio.AbstractEventLoop, AsyncGenerator[None, None]] = {}

    def get(self, key: K) -> C:
        """The running loop's client for ``key``, created on first use."""
        loop = asyncio.get_running_loop()
        with self._lock:
            for finished in [each for each in self._clients if each.is_closed()]:
                # Its clients keep the loop alive (their sockets refer to it); let both go.
                del self._clients[finished]
            for finished in [each for each in self._shutdown_hooks if each.is_closed()]:
                del self._shutdown_hooks[finished]
            if loop not in self._shutdown_hooks:
                self._shutdown_hooks[loop] = at_loop_shutdown(self._close_at_loop_shutdown)
            clients = self._clients.setdefault(loop, {})
            client = clients.get(key)
            if client is None:
                client = clients[key] = self._create(key)
            return client

    async def aclose(self) -> None:
        """Close the running loop's clients."""
        loop = asyncio.get_running_loop()
        with self._lock:
            clients = list(self._clients.pop(loop, {}).values())
        for client in clients:
            await self._close(client)

    def close_idle(self) -> None:
        """Close the clients of loops that are not running (all of them, outside a running loop).

        Inside a running loop no other loop can be run, so only closed loops are let go there;
        their sockets went with them.
        """
        can_run_loops = _no_running_loop()
        with self._lock:
            idle = [
                loop
                for loop in self._clients
                if loop.is_closed() or (can_run_loops and not loop.is_running())
            ]
            stale = [(loop, self._clients.pop(loop)) for loop in idle]
        for loop, clients in stale:
            if loop.is_closed():
                continue  # a closed loop cannot run the close any more
            for client in clients.values():
                loop.run_until_complete(self._close(client))

    async def _close_at_loop_shutdown(self) -> None:
        with self._lock:
            self._shutdown_hooks.pop(asyncio.get_running_loop(), None)
        await self.aclose()


def _no_running_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False
