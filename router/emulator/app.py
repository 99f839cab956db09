"""The HTTP side: route a request, pick its fault, then answer, fail or misbehave.

Routing, the fault choice, the ``*N`` attempt counts and the request log happen right after
the body is read, before anything else can run, so they follow arrival order.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web

from router.emulator import error_replies
from router.emulator.apis import APIS, Endpoint, ProviderApi, api_of_path, route
from router.emulator.faults import (
    CONTENT_FAULTS,
    FAULT_HEADER,
    AttemptCounter,
    FaultPlan,
    FaultSpec,
    FaultSpecError,
    directive_spec,
    strip_directives,
)
from router.emulator.replay import REPLAY_HEADER, ReplayLibrary, ReplayMiss
from router.emulator.reply import SSE_CONTENT_TYPE, Reply
from router.emulator.request_log import RecordedRequest, RequestLog
from router.emulator.synthesis import synthesise
from router.emulator.trickle import TRICKLE_KINDS, trickle
from router.emulator.wire import Ask, BadRequest
from router.emulator.work_queue import WorkQueue

__all__ = ["ProviderHandler"]

_STATUS_FAULTS = ("429", "500", "503", "529", "400", "401", "html")
_HANG_CAP_S = 3600.0
_STREAM_BATCH_BYTES = 16_384
_NON_JSON_TEXT = (
    b"upstream connect error or disconnect/reset before headers. reset reason: overflow"
)


@dataclass(frozen=True)
class _Decision:
    """What to do once the latency has passed."""

    api: ProviderApi
    reply: Reply | None = None
    ask: Ask | None = None
    endpoint: Endpoint | None = None
    fault: FaultSpec | None = None


class ProviderHandler:
    """The aiohttp handler; its settings are read on every request, so they can change live."""

    def __init__(
        self,
        *,
        settings: Callable[[], tuple[float, FaultPlan | None]],
        replay: ReplayLibrary | None,
        log: RequestLog,
        seed: str | None = None,
    ) -> None:
        self._settings = settings
        self._seed = seed
        self._replay = replay
        self._log = log
        self._closed = False
        self._sleepers: set[asyncio.Future[bool]] = set()
        self._work: WorkQueue[Reply | list[bytes] | None] = WorkQueue(closed_result=None)
        self._attempts = AttemptCounter()
        self._queued: dict[str, deque[Reply]] = {api.name: deque() for api in APIS}
        self.in_flight = 0
        self.max_in_flight = 0

    def enqueue(self, api: str, reply: Reply) -> None:
        """Serve ``reply`` to the next request on ``api``, before anything else."""
        self._queued[api].append(reply)

    async def __call__(self, request: web.BaseRequest) -> web.StreamResponse:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            body = await request.read()
            loop = asyncio.get_running_loop()
            arrived = loop.time()
            latency_s, plan = self._settings()
            decision = self._decide(request, body, plan)
            # Latency counts from arrival and includes the synthesis, as a real service's
            # does, so the emulator's CPU time hides inside it instead of adding to it.
            payload = await self._work.run(lambda: _payload(decision, self._seed))
            if self._closed:
                return _drop(request)
            remaining = latency_s - (loop.time() - arrived)
            if remaining > 0 and await self._pause(remaining):
                return _drop(request)
            return await self._deliver(request, decision, payload)
        finally:
            self.in_flight -= 1

    def _decide(self, request: web.BaseRequest, body: bytes, plan: FaultPlan | None) -> _Decision:
        routed = route(request.method, request.path, request.query)
        parsed = _parse_json(body)
        decision = self._decision(request, body, parsed, routed, plan)
        self._log.add(
            RecordedRequest(
                method=request.method,
                path=request.path,
                query=request.query_string,
                headers={k.lower(): v for k, v in request.headers.items()},
                body=body,
                json=parsed,
                api=routed[0].name if routed else None,
                fault=str(decision.fault) if decision.fault else None,
            )
        )
        return decision

    def _decision(
        self,
        request: web.BaseRequest,
        body: bytes,
        parsed: Any,
        routed: tuple[ProviderApi, Endpoint] | None,
        plan: FaultPlan | None,
    ) -> _Decision:
        if routed is None:
            api = api_of_path(request.path)
            return _Decision(api, api.errors.not_found(request.method, request.path))
        api, endpoint = routed
        queued = self._queued[api.name]
        if queued:
            try:
                return _Decision(api, queued.popleft())
            except IndexError:  # another request took it
                pass
        if not api.authorised(request.headers, request.query):
            return _Decision(api, api.errors.missing_auth())
        if not isinstance(parsed, dict):
            return _Decision(api, api.errors.unparseable_body())
        try:
            ask = api.read_request(parsed, endpoint)
            ask = replace(ask, question=strip_directives(ask.question))
            spec = self._fault_for(request, ask, plan)
        except BadRequest as exc:
            return _Decision(api, api.errors.bad_request(exc.message, exc.param, exc.code))
        except FaultSpecError as exc:
            return _Decision(api, api.errors.bad_request(f"emulator: {exc}", None, None))
        if spec is not None and not self._attempts.hits(spec, f"{request.path}\0".encode() + body):
            spec = None
        decision = _Decision(api, ask=ask, endpoint=endpoint, fault=spec)
        if spec is not None and spec.kind in _STATUS_FAULTS:
            return replace(decision, reply=error_replies.fault_reply(api, spec, ask.model))
        if spec is not None and spec.kind == "non_json":
            return replace(decision, reply=_non_json(ask.stream, api))
        if self._replay is not None:
            try:
                name = request.headers.get(REPLAY_HEADER)
                return replace(decision, reply=self._replay.pick(api, stream=ask.stream, name=name))
            except ReplayMiss as exc:
                reply = api.errors.bad_request(f"emulator: {exc}", None, None)
                return replace(decision, reply=reply)
        return decision

    def _fault_for(
        self, request: web.BaseRequest, ask: Ask, plan: FaultPlan | None
    ) -> FaultSpec | None:
        header = request.headers.get(FAULT_HEADER)
        if header:
            spec: FaultSpec | None = FaultSpec.parse(header)
        else:
            spec = directive_spec(ask.prompt, ask.api)
            if spec is None and plan is not None:
                spec = plan.choose(ask.question)
        return spec if spec is not None and spec.applies_to(ask.api) else None

    async def _deliver(
        self, request: web.BaseRequest, decision: _Decision, payload: Reply | list[bytes] | None
    ) -> web.StreamResponse:
        fault = decision.fault
        if fault is not None and fault.kind == "hang":
            await self._pause(fault.arg if fault.arg is not None else _HANG_CAP_S)
            return _drop(request)
        if payload is None:
            return _drop(request)
        if fault is not None and fault.kind == "delay" and await self._pause(fault.arg or 1.0):
            return _drop(request)
        headers = {"x-emulator-fault": str(fault)} if fault else {}
        headers |= decision.api.request_headers()
        if fault is not None and fault.kind in TRICKLE_KINDS:
            return await trickle(request, fault, payload, headers, self._pause)
        if isinstance(payload, Reply) and payload.raw:
            return _write_raw(request, payload.body)
        if isinstance(payload, Reply):
            return _respond(payload, headers)
        return await _stream(request, payload, headers)

    async def _pause(self, seconds: float) -> bool:
        """Wait, or stop waiting when the emulator shuts down; True if it is shutting down.

        A bare future and timer, as cheap as asyncio.sleep, that close() can end early.
        """
        if self._closed:
            return True
        waiter: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        timer = waiter.get_loop().call_later(seconds, _settle, waiter, False)
        self._sleepers.add(waiter)
        try:
            return await waiter
        finally:
            timer.cancel()
            self._sleepers.discard(waiter)

    def reopen(self) -> None:
        """Accept requests again after a restart."""
        self._closed = False
        self._work.reopen()

    def close(self) -> None:
        """End every pause now (requests that were waiting drop their connection)."""
        self._closed = True
        self._work.close()
        for waiter in list(self._sleepers):
            _settle(waiter, True)


def _settle(waiter: asyncio.Future[bool], closing: bool) -> None:
    if not waiter.done():
        waiter.set_result(closing)


def _payload(decision: _Decision, seed: str | None) -> Reply | list[bytes] | None:
    """What the request will be sent: a reply, stream frames, or None (drop or hang)."""
    kind = decision.fault.kind if decision.fault else None
    if kind in ("drop", "hang"):
        return None
    if decision.reply is not None:
        return _cut(decision.reply) if kind == "truncate" else decision.reply
    assert decision.ask is not None
    assert decision.endpoint is not None
    content_fault = kind if kind in CONTENT_FAULTS else None
    synthesised = synthesise(
        decision.api, decision.ask, sse=decision.endpoint.sse, fault=content_fault, seed=seed
    )
    if isinstance(synthesised, Reply):
        return _cut(synthesised) if kind == "truncate" else synthesised
    frames = synthesised
    if kind == "truncate":
        cut = len(frames) // 2
        frames = [*frames[:cut], frames[cut][: len(frames[cut]) // 2]]
    return frames


def _parse_json(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None


def _non_json(stream: bool, api: ProviderApi) -> Reply:
    """A 200 whose body is not JSON: a proxy's text where JSON (or JSON events) belongs.

    Where events are named (a client skips a nameless one), the text comes as the data of the
    first event a client expects.
    """
    if stream:
        body = api.stream_opening + b"data: " + _NON_JSON_TEXT + b"\n\n"
        return Reply(200, body, content_type=SSE_CONTENT_TYPE)
    return Reply(200, _NON_JSON_TEXT)


def _cut(reply: Reply) -> Reply:
    """The reply with its body cut in half, which always falls inside the JSON."""
    return replace(reply, body=reply.body[: len(reply.body) // 2])


def _respond(reply: Reply, headers: dict[str, str]) -> web.Response:
    return web.Response(
        status=reply.status,
        body=reply.body,
        headers={"Content-Type": reply.content_type, **reply.headers, **headers},
    )


async def _stream(
    request: web.BaseRequest, frames: list[bytes], headers: dict[str, str]
) -> web.StreamResponse:
    response = web.StreamResponse(
        status=200,
        headers={"Content-Type": SSE_CONTENT_TYPE, "Cache-Control": "no-cache", **headers},
    )
    try:
        await response.prepare(request)
        # Frames go out in batches: one write per event costs a syscall each, and with no
        # pause between events the client cannot tell the difference.
        batch: list[bytes] = []
        size = 0
        for frame in frames:
            batch.append(frame)
            size += len(frame)
            if size >= _STREAM_BATCH_BYTES:
                await response.write(b"".join(batch))
                batch, size = [], 0
        if batch:
            await response.write(b"".join(batch))
        await response.write_eof()
    except ConnectionError:
        pass  # the client went away mid-stream; nothing is owed to it
    return response


def _write_raw(request: web.BaseRequest, message: bytes) -> web.Response:
    """Write ``message`` as the whole reply, then close (the Response below is never sent)."""
    if request.transport is not None:
        request.transport.write(message)
    return _drop(request)


def _drop(request: web.BaseRequest) -> web.Response:
    """Close the connection without a response (the Response below is never sent)."""
    if request.transport is not None:
        request.transport.close()
    return web.Response(status=204)
