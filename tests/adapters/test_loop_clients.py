"""LoopClients: one client per running loop and key, each closed on the loop it belongs to."""

from __future__ import annotations

import asyncio

from adapters.sdk.loop_clients import LoopClients


class Client:
    def __init__(self, key: str) -> None:
        self.key = key
        self.loop = asyncio.get_running_loop()
        self.closed_on: list[asyncio.AbstractEventLoop] = []


async def close(client: Client) -> None:
    await asyncio.sleep(0)  # a real close awaits the network
    client.closed_on.append(asyncio.get_running_loop())


def registry() -> tuple[LoopClients[str, Client], list[Client]]:
    made: list[Client] = []

    def create(key: str) -> Client:
        made.append(Client(key))
        return made[-1]

    return LoopClients(create, close), made


def test_one_client_per_loop_and_key_closed_when_asyncio_run_ends() -> None:
    """Within a loop a key's client is reused; every loop gets its own; each closes on its loop."""
    clients, made = registry()

    async def use() -> None:
        assert clients.get("a") is clients.get("a")
        assert clients.get("b") is not clients.get("a")

    asyncio.run(use())
    asyncio.run(use())
    assert [client.key for client in made] == ["a", "b", "a", "b"]
    assert made[0].loop is not made[2].loop
    assert [client.closed_on for client in made] == [[client.loop] for client in made]


def test_aclose_closes_only_the_running_loops_clients() -> None:
    """aclose() inside a loop closes that loop's clients, and a later get() makes a new one."""
    clients, made = registry()

    async def use() -> None:
        first = clients.get("a")
        await clients.aclose()
        assert first.closed_on == [asyncio.get_running_loop()]
        assert clients.get("a") is not first

    asyncio.run(use())
    assert len(made) == 2
    assert all(len(client.closed_on) == 1 for client in made)


def test_close_idle_runs_a_hand_run_loop_to_close_its_clients() -> None:
    """A loop run by hand and left open is idle: close_idle() closes its clients on it."""
    clients, made = registry()
    loop = asyncio.new_event_loop()
    try:

        async def use() -> None:
            clients.get("a")

        loop.run_until_complete(use())
        assert made[0].closed_on == []
        clients.close_idle()
        assert made[0].closed_on == [loop]
    finally:
        loop.close()
