"""The HTTP side: route a request, pick its fault, then answer, fail or misbehave.

Routing, the fault choice, the ``*N`` attempt counts and the request log happen right after
the body is read, before anything else can run, so they follow arrival order.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, get_args

from aiohttp import web

from router.emulator import error_replies
from router.emulator.apis import (
    anthropic_messages,
    gemini,
    openai_responses,
    openrouter,
    perplexity,
    vertex,
)
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
from router.emulator.wire import Api, Ask, BadRequest
from router.emulator.work_queue import WorkQueue

__all__ = ["ProviderHandler", "Route", "route_of"]

_VERTEX_PATH = re.compile(
    r"^/(?:v1|v1beta1)/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/"
    r"(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
)
_OPENAI_PATH = "/v1/responses"
_ANTHROPIC_PATH = "/v1/messages"
_STATUS_FAULTS = ("429", "500", "503", "529", "400", "401", "html")
_HANG_CAP_S = 3600.0
_STREAM_BATCH_BYTES = 16_384
_NON_JSON_TEXT = (
    b"upstream connect error or disconnect/reset before headers. reset reason: overflow"
)


@dataclass(frozen=True)
class Route:
    """Which endpoint a request reached."""

    api: Api
    model: str = ""
    stream: bool = False
    sse: bool = False


def route_of(method: str, path: str, query: dict[str, str]) -> Route | None:
    """The endpoint of a request, or None when neither service serves it."""
    if method != "POST":
        return None
    if path == _OPENAI_PATH:
        return Route("openai")
    if path == _ANTHROPIC_PATH:
        return Route("anthropic")
    if path == perplexity.PATH:
        return Route("perplexity")
    if path == openrouter.PATH:
        return Route("openrouter")
    google: tuple[tuple[Api, re.Pattern[str]], ...] = (
        ("vertex", _VERTEX_PATH),
        ("gemini", gemini.PATH),
    )
    for api, pattern in google:
        match = pattern.match(path)
        if match is not None:
            stream = match["method"] == "streamGenerateContent"
            sse = stream and query.get("alt") == "sse"
            return Route(api, match["model"], stream=stream, sse=sse)
    return None


def _api_of_path(path: str) -> Api:
    if "/publishers/" in path or path.startswith("/v1beta1"):
        return "vertex"
    if path.startswith(("/v1beta/", "/v1/models/")):
        return "gemini"
    if path.startswith("/v1/messages"):
        return "anthropic"
    if path.startswith("/api/"):
        return "openrouter"
    return "perplexity" if path.startswith("/chat/") else "openai"


@dataclass(frozen=True)
class _Decision:
    """What to do once the latency has passed."""

    api: Api
    reply: Reply | None = None
    ask: Ask | None = None
    route: Route | None = None
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
        self._queued: dict[Api, deque[Reply]] = {api: deque() for api in get_args(Api)}
        self.in_flight = 0
        self.max_in_flight = 0

    def enqueue(self, api: Api, reply: Reply) -> None:
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
        route = route_of(request.method, request.path, dict(request.query))
        parsed = _parse_json(body)
        decision = self._decision(request, body, parsed, route, plan)
        self._log.add(
            RecordedRequest(
                method=request.method,
                path=request.path,
                query=request.query_string,
                headers={k.lower(): v for k, v in request.headers.items()},
                body=body,
                json=parsed,
                api=route.api if route else None,
                fault=str(decision.fault) if decision.fault else None,
            )
        )
        return decision

    def _decision(
        self,
        request: web.BaseRequest,
        body: bytes,
        parsed: Any,
        route: Route | None,
        plan: FaultPlan | None,
    ) -> _Decision:
        if route is None:
            api = _api_of_path(request.path)
            return _Decision(api, error_replies.not_found(api, request.method, request.path))
        api = route.api
        if self._queued[api]:
            try:
                return _Decision(api, self._queued[api].popleft())
            except IndexError:  # another request took it
                pass
        if not _authorised(api, request):
            return _Decision(api, error_replies.missing_auth(api))
        if not isinstance(parsed, dict):
            return _Decision(api, error_replies.unparseable_body(api))
        try:
            ask = _read_request(parsed, route)
            ask = replace(ask, question=strip_directives(ask.question))
            spec = self._fault_for(request, ask, plan)
        except BadRequest as exc:
            return _Decision(
                api, error_replies.bad_request(api, exc.message, param=exc.param, code=exc.code)
            )
        except FaultSpecError as exc:
            return _Decision(api, error_replies.bad_request(api, f"emulator: {exc}"))
        if spec is not None and not self._attempts.hits(spec, f"{request.path}\0".encode() + body):
            spec = None
        decision = _Decision(api, ask=ask, route=route, fault=spec)
        if spec is not None and spec.kind in _STATUS_FAULTS:
            return replace(decision, reply=error_replies.fault_reply(api, spec, ask.model))
        if spec is not None and spec.kind == "non_json":
            return replace(decision, reply=_non_json(ask.stream, api))
        if self._replay is not None:
            try:
                name = request.headers.get(REPLAY_HEADER)
                return replace(decision, reply=self._replay.pick(api, stream=ask.stream, name=name))
            except ReplayMiss as exc:
                return replace(decision, reply=error_replies.bad_request(api, f"emulator: {exc}"))
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
        if decision.api == "openai":
            headers["x-request-id"] = f"req_{secrets.token_hex(16)}"
        elif decision.api == "anthropic":
            headers["request-id"] = f"req_011C{secrets.token_hex(10)}"
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
    assert decision.route is not None
    content_fault = kind if kind in CONTENT_FAULTS else None
    frames, reply = synthesise(decision.ask, sse=decision.route.sse, fault=content_fault, seed=seed)
    if frames is None:
        assert reply is not None
        return _cut(reply) if kind == "truncate" else reply
    if kind == "truncate":
        cut = len(frames) // 2
        frames = [*frames[:cut], frames[cut][: len(frames[cut]) // 2]]
    return frames


def _read_request(parsed: dict[str, Any], route: Route) -> Ask:
    """The :class:`Ask` of a request body, read as the endpoint it reached reads it."""
    if route.api == "openai":
        return openai_responses.read_request(parsed)
    if route.api == "gemini":
        return gemini.read_request(parsed, model=route.model, stream=route.stream)
    if route.api == "perplexity":
        return perplexity.read_request(parsed)
    if route.api == "openrouter":
        return openrouter.read_request(parsed)
    if route.api == "anthropic":
        return anthropic_messages.read_request(parsed)
    return vertex.read_request(parsed, model=route.model, stream=route.stream)


def _parse_json(body: bytes) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None


def _authorised(api: Api, request: web.BaseRequest) -> bool:
    if api == "gemini":
        return gemini.authorised(request.headers, request.query)
    bearer = request.headers.get("Authorization", "")
    if bearer.startswith("Bearer ") and bearer[7:].strip():
        return True
    if api == "anthropic":
        return bool(request.headers.get("x-api-key", "").strip())
    return api == "vertex" and bool(request.headers.get("x-goog-api-key"))


def _non_json(stream: bool, api: Api) -> Reply:
    """A 200 whose body is not JSON: a proxy's text where JSON (or JSON events) belongs.

    Anthropic's events are named (a client skips a nameless one), so there the text comes as
    the data of the first event a client expects.
    """
    if stream:
        event = b"event: message_start\n" if api == "anthropic" else b""
        body = event + b"data: " + _NON_JSON_TEXT + b"\n\n"
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
