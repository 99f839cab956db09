"""The routing stage of a Ray batch job: an async callable class, one instance per actor.

Each actor holds one router (its SDK clients are made once, on the actor's event loop, and
reused) and a semaphore bounding the requests it has in flight. It never raises: a
``RouterError`` becomes the same ``ok: false`` row as in the local engine, and so does anything
unexpected, so a REQUIRED failure or a provider error never makes Ray retry the block and pay
for its searches again.

It commits its rows itself (:mod:`.commits`): finished rows wait at most ``commit_s`` seconds
before their shard and checkpoint are written, however long the rest of their block takes, and
a block Ray retries after its actor died routes only the rows its earlier attempt did not
commit. What it returns is the counts of the rows it committed (:data:`.blocks.STATS_SCHEMA`),
which the driver folds as they arrive.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pyarrow as pa

from router.batch.fanout_lines import request_row
from router.batch.limits import gated_adapters
from router.batch.output import error_row, line_bytes, row_text, unexpected_error
from router.batch.ray_engine.blocks import (
    FACTS,
    FANOUT,
    LINE,
    REQUEST,
    REQUEST_ID,
    ROW,
    decode_facts,
    decode_id,
    decode_request,
    encode_facts,
    stats_table,
)
from router.batch.ray_engine.commits import BatchCommits, block_key
from router.batch.ray_engine.layout import Layout
from router.batch.stats import BatchStats, row_facts
from router.logging import get_logger
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings, pool_entry_settings
from router.text.redaction import register_secret

__all__ = ["RouteRows"]

log = get_logger(__name__)

# (request_id, row line, facts) of one finished row, as its columns hold them.
_Finished = tuple[bytes, bytes, bytes]


class RouteRows:
    """Routes and commits the requests of each block it is given; returns their counts.

    ``concurrency`` is the job's requests in flight: ``shares`` (the job's progress actor)
    tells each actor its share of them for the pool running now, before every block; without
    it, the actor takes them all. The actor routes with the entry of each credential pool that
    its number in the job (from ``shares``; 0 without) gives, as local worker processes do.
    ``rate_limits`` is the handle of the job's shared rate-limit actor, or None for no limit.
    """

    def __init__(
        self,
        settings: RouterSettings,
        layout: Layout,
        *,
        concurrency: int,
        commit_s: float,
        shares: Any | None = None,
        rate_limits: Any | None = None,
    ) -> None:
        self._settings = settings
        for name, secret in settings.named_secrets().items():
            register_secret(
                secret, name=name
            )  # rows leave this process redacted, as the local engine's
        self._commits = BatchCommits(layout)
        self._concurrency = concurrency
        self._shares = shares
        self._name = uuid.uuid4().hex
        self._commit_s = commit_s
        self._rate_limits = rate_limits
        self._router: UnifiedLLMAdapter | None = None
        self._builder: UnifiedLLMAdapter | None = None
        self._gate = _Gate(concurrency)
        self._numbered: asyncio.Future[None] | None = None

    async def __call__(self, batch: pa.Table) -> pa.Table:
        if self._numbered is None:  # once, before this actor's router is built
            self._numbered = asyncio.ensure_future(self._take_pool_entry())
        await self._numbered
        if self._shares is not None:
            await self._gate.resize(await self._shares.share.remote(self._name, self._concurrency))
        columns = batch.to_pydict()
        key = block_key(columns[REQUEST_ID])
        earlier = await asyncio.to_thread(self._commits.earlier, key)
        counted = BatchStats()
        for facts in earlier.facts:
            counted.record(decode_facts(facts))
        done = set(earlier.request_ids)
        routing = {
            asyncio.ensure_future(
                self._finish(request_id, line, request, row, facts, fanout=fanout)
            )
            for request_id, line, request, fanout, row, facts in zip(
                columns[REQUEST_ID],
                columns[LINE],
                columns[REQUEST],
                columns[FANOUT],
                columns[ROW],
                columns[FACTS],
                strict=True,
            )
            if request_id not in done
        }
        commits = earlier.commits
        finished: list[_Finished] = []
        oldest = 0.0  # when the oldest row not yet committed finished
        while routing:
            wait = None if not finished else max(0.0, oldest + self._commit_s - time.monotonic())
            ended, routing = await asyncio.wait(
                routing, timeout=wait, return_when=asyncio.FIRST_COMPLETED
            )
            if ended and not finished:
                oldest = time.monotonic()
            finished.extend(task.result() for task in ended)
            if finished and (not routing or time.monotonic() >= oldest + self._commit_s):
                await asyncio.to_thread(self._commits.commit, key, commits, finished)
                for _, _, facts in finished:
                    counted.record(decode_facts(facts))
                commits += 1
                finished = []
        return stats_table(counted)

    async def _finish(
        self,
        request_id: bytes,
        line: int,
        request: bytes | None,
        row: bytes | None,
        facts: bytes | None,
        *,
        fanout: bool | None,
    ) -> _Finished:
        if request is None:  # a line that is no request: its error row was made on reading
            assert row is not None
            assert facts is not None
            return request_id, row, facts
        try:
            parsed = decode_request(request, bool(fanout))
        except Exception as exc:  # cannot happen for what the reader encoded; costs one row
            log.exception("batch_row_failed", request_id=decode_id(request_id))
            failure = unexpected_error(exc)
            text = row_text(error_row(line, decode_id(request_id), failure))
            return request_id, line_bytes(text), encode_facts(row_facts(error=failure))
        async with self._gate.slot():
            # With a rate limit, every attempt waits for its turn (see _routing).
            text, counted = await request_row(self._routing(), line, parsed)
        return request_id, line_bytes(text), encode_facts(counted)

    async def _take_pool_entry(self) -> None:
        if not self._settings.credential_pools:
            return
        number = 0 if self._shares is None else await self._shares.number.remote(self._name)
        self._settings = pool_entry_settings(self._settings, number)

    async def aclose(self) -> None:
        """Close the router's clients (an actor's are closed with its process)."""
        if self._router is not None:
            await self._router.aclose()
        if self._builder is not None:
            await self._builder.aclose()

    async def _acquire(self, key: str) -> None:
        assert self._rate_limits is not None
        await self._rate_limits.acquire.remote(key)

    def _routing(self) -> UnifiedLLMAdapter:
        if self._router is None:
            if self._rate_limits is None:
                self._router = UnifiedLLMAdapter(self._settings)
            else:
                # Every attempt passes the limit, retries included: the router calls gated
                # adapters, which the builder makes (and closes) on first use. The limiter
                # lives with the driver: if it is gone, so is the job, and the error rightly
                # ends this task instead of writing rows.
                self._builder = UnifiedLLMAdapter(self._settings)
                gated = gated_adapters(self._builder, self._settings, self._acquire)
                self._router = UnifiedLLMAdapter(self._settings, adapters=gated)
        return self._router


class _Gate:
    """A semaphore whose number of slots may change while it is held."""

    def __init__(self, slots: int) -> None:
        self._slots = slots
        self._busy = 0
        self._changed: asyncio.Condition | None = None

    async def resize(self, slots: int) -> None:
        async with self._condition():
            self._slots = slots
            self._condition().notify_all()

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        changed = self._condition()
        async with changed:
            await changed.wait_for(lambda: self._busy < self._slots)
            self._busy += 1
        try:
            yield
        finally:
            async with changed:
                self._busy -= 1
                changed.notify()

    def _condition(self) -> asyncio.Condition:
        # Made on first use, on the event loop the actor runs its calls on.
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed
