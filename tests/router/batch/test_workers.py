"""How worker processes hand finished rows to the parent: one message per turn of the loop."""

from __future__ import annotations

import asyncio
from typing import Any

from router.batch.local_engine.workers import _RowBatcher
from router.batch.stats import row_facts
from router.errors import RouterError

FACTS = row_facts(error=RouterError("an example failure", reason="server_error"))


class Channel:
    """Stands in for the multiprocessing queue to the parent: records what is put."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    def put(self, message: Any) -> None:
        self.messages.append(message)


async def next_turn() -> None:
    """Return once the callbacks already scheduled on the loop have run."""
    loop = asyncio.get_running_loop()
    turn = loop.create_future()
    loop.call_soon(turn.set_result, None)
    await turn


async def test_rows_finished_in_one_turn_leave_as_one_message() -> None:
    channel = Channel()
    rows = _RowBatcher(channel, asyncio.get_running_loop())
    rows.add(("row 1", FACTS))
    rows.add(("row 2", FACTS))
    assert channel.messages == []  # nothing leaves before the turn ends
    await next_turn()
    assert channel.messages == [("rows", [("row 1", FACTS), ("row 2", FACTS)])]


async def test_a_lone_row_leaves_at_the_end_of_its_turn() -> None:
    channel = Channel()
    rows = _RowBatcher(channel, asyncio.get_running_loop())
    rows.add(("row 1", FACTS))
    await next_turn()
    rows.add(("row 2", FACTS))
    await next_turn()
    assert channel.messages == [("rows", [("row 1", FACTS)]), ("rows", [("row 2", FACTS)])]


async def test_flush_sends_what_is_pending_and_never_an_empty_message() -> None:
    channel = Channel()
    rows = _RowBatcher(channel, asyncio.get_running_loop())
    rows.flush()
    rows.add(("row 1", FACTS))
    rows.flush()  # as the worker does on its way out
    await next_turn()  # the scheduled flush then finds nothing to send
    assert channel.messages == [("rows", [("row 1", FACTS)])]
