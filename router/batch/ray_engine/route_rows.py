"""The routing stage of a Ray batch job: an async callable class, one instance per actor.

Each actor holds one router (its SDK clients are made once, on the actor's event loop, and
reused) and a semaphore bounding the requests it has in flight. It never raises: a
``RouterError`` becomes the same ``ok: false`` row as in the local engine, and so does anything
unexpected, so a REQUIRED failure or a provider error never makes Ray retry the block and pay
for its searches again.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pyarrow as pa

from router.batch.fanout_lines import request_row, request_vendors
from router.batch.output import error_row, line_bytes, row_text, unexpected_error
from router.batch.ray_engine.blocks import (
    FACTS,
    FANOUT,
    LINE,
    OUTPUT_SCHEMA,
    REQUEST,
    REQUEST_ID,
    ROW,
    decode_id,
    decode_request,
    encode_facts,
)
from router.batch.stats import row_facts
from router.logging import get_logger
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from router.text.redaction import register_secret

__all__ = ["RouteRows"]

log = get_logger(__name__)

# (request_id, row line, facts) of one finished row, as its columns hold them.
_Finished = tuple[bytes, bytes, bytes]


class RouteRows:
    """Routes the requests of each block it is given; returns one finished row per input row.

    ``rate_limits`` is the handle of the job's shared rate-limit actor, or None for no limit.
    """

    def __init__(
        self, settings: RouterSettings, *, concurrency: int, rate_limits: Any | None = None
    ) -> None:
        self._settings = settings
        for name, secret in settings.named_secrets().items():
            register_secret(
                secret, name=name
            )  # rows leave this process redacted, as the local engine's
        self._concurrency = concurrency
        self._rate_limits = rate_limits
        self._router: UnifiedLLMAdapter | None = None
        self._gate: asyncio.Semaphore | None = None

    async def __call__(self, batch: pa.Table) -> pa.Table:
        columns = batch.to_pydict()
        finished = await asyncio.gather(
            *(
                self._finish(request_id, line, request, row, facts, fanout=fanout)
                for request_id, line, request, fanout, row, facts in zip(
                    columns[REQUEST_ID],
                    columns[LINE],
                    columns[REQUEST],
                    columns[FANOUT],
                    columns[ROW],
                    columns[FACTS],
                    strict=True,
                )
            )
        )
        request_ids, rows, facts = zip(*finished, strict=True) if finished else ((), (), ())
        return pa.table(
            {REQUEST_ID: list(request_ids), ROW: list(rows), FACTS: list(facts)},
            schema=OUTPUT_SCHEMA,
        )

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
        async with self._slot():
            if self._rate_limits is not None:
                # The limiter lives with the driver: if it is gone, so is the job, and the
                # error rightly ends this task instead of writing rows. A line asking several
                # vendors spends one request of each.
                for vendor in request_vendors(parsed):
                    await self._rate_limits.acquire.remote(vendor)
            text, counted = await request_row(self._routing(), line, parsed)
        return request_id, line_bytes(text), encode_facts(counted)

    async def aclose(self) -> None:
        """Close the router's clients (an actor's are closed with its process)."""
        if self._router is not None:
            await self._router.aclose()

    def _slot(self) -> asyncio.Semaphore:
        # Made on first use, on the event loop the actor runs its calls on.
        if self._gate is None:
            self._gate = asyncio.Semaphore(self._concurrency)
        return self._gate

    def _routing(self) -> UnifiedLLMAdapter:
        if self._router is None:
            self._router = UnifiedLLMAdapter(self._settings)
        return self._router
