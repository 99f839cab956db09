"""class Router: the single entry point backend pipelines call (UnifiedLLMAdapter is its alias).

The router is wiring: it holds the adapter cache, the retry layer and the tracing, and hands
the rest on. ``route(request)`` looks up the vendor's registry row once (:mod:`adapters.registry`;
the adapter is imported lazily, created once and reused), checks the request against the row's
capabilities (:mod:`router.capabilities`), runs the adapter under the one retry layer within the
call's limits (:mod:`router.call_limits`), and takes the one last step every path shares
(:mod:`router.respond`: redirect resolution, cost, assembly, the validators, which fail closed).
Only ``RouterError`` subclasses leave this module. ``stream(request)`` does the same as a stream
of events (:mod:`router.streaming` says how it behaves; :mod:`router.streaming.call` runs it).

Each sync/async twin holds only its I/O lines; what they decide is written once, in the helpers
they share.
"""

from __future__ import annotations

import asyncio
import copy
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from adapters.base import Adapter, AdapterResult, StreamingAdapter
from adapters.registry import ProviderRow, provider
from router.call_limits import (
    CallLimits,
    DeadlineExceeded,
    limits_for,
    limits_scope,
    run_within,
)
from router.capabilities import check_request
from router.citations.domains import load_suffix_list
from router.citations.redirects import RedirectResolver
from router.errors import (
    GroundingRequiredFailedError,
    RequestValidationError,
    RouterError,
)
from router.fallback import Attempts, chain_of, with_earlier_cost
from router.fanout import FanoutResult, Require, afan_out, fan_out
from router.grounding.enforce import policy_validator
from router.logging import CallLogContext, get_logger, register_secret
from router.pricing import PriceBook
from router.respond import Responder, aguarded, guarded, load_prices, unexpected
from router.retry import AsyncSleep, RetryPolicy, Sleep
from router.settings import RouterSettings
from router.streaming.call import StreamParts, arun_stream, run_stream
from router.streaming.events import Completed, StreamEvent
from router.tracing import (
    FIRST_CHUNK_S,
    STREAM_ABANDONED,
    NoSpan,
    OperationSpan,
    RouteTrace,
    Tracing,
)
from router.types import Cost, LLMRequest, LLMResponse, Vendor
from router.validation import DEFAULT_VALIDATORS, Validator

__all__ = [
    "RequestInput",
    "Router",
    "UnifiedLLMAdapter",
    "aroute",
    "aroute_many",
    "as_request",
    "astream",
    "route",
    "route_many",
    "shared_router",
    "stream",
]

if TYPE_CHECKING:
    from router.cache import ResponseCache

RequestInput = LLMRequest | Mapping[str, Any]

FALLBACK_SPAN = "grounding_router.fallback"
FALLBACK_VENDORS = "grounding_router.fallback.vendors"

log = get_logger(__name__)


def as_request(request: RequestInput) -> LLMRequest:
    """Accept an ``LLMRequest`` or a plain dict; bad input raises ``RequestValidationError``."""
    if isinstance(request, LLMRequest):
        return request
    try:
        return LLMRequest.model_validate(request)
    except RouterError:
        raise
    except Exception as exc:  # a caller's object whose methods raise while being read
        raise RequestValidationError(
            f"request: could not be read ({type(exc).__name__})", field="request"
        ) from exc


class Router:
    """Routes requests to provider adapters; safe to share between threads and tasks.

    ``adapters`` replaces the built-in adapter of a vendor (tests, custom transports);
    ``validators`` replaces the grounding checks (a grounding policy is still enforced after
    them); ``sleep``/``async_sleep`` are what the retry
    layer waits with, injectable so tests never wait; ``prices`` replaces the price book read
    from the providers' tables and ``settings.prices``. A price file that cannot be read is a
    ``ConfigurationError`` here, at construction. ``resolver`` replaces the
    ``RedirectResolver`` built from the settings; either is used only while
    ``settings.resolve_redirects`` is on. ``tracer_provider`` is the OpenTelemetry tracer
    provider of this router's spans, instead of the global one (:mod:`router.tracing`).
    ``cache`` is the response cache (a ``ResponseCache`` or its file), instead of the one
    ``settings.cache`` names; neither: no cache (:mod:`router.cache`). Streams are not cached.
    """

    def __init__(
        self,
        settings: RouterSettings | None = None,
        *,
        adapters: Mapping[Vendor, Adapter] | None = None,
        validators: Sequence[Validator] = DEFAULT_VALIDATORS,
        sleep: Sleep = time.sleep,
        async_sleep: AsyncSleep = asyncio.sleep,
        prices: PriceBook | None = None,
        resolver: RedirectResolver | None = None,
        tracer_provider: Any | None = None,
        cache: ResponseCache | str | Path | None = None,
    ) -> None:
        self.settings = settings if settings is not None else RouterSettings()
        self._adapters: dict[Vendor, Adapter] = dict(adapters or {})
        self._adapters_lock = threading.Lock()
        self._retry = RetryPolicy(self.settings, sleep=sleep, async_sleep=async_sleep)
        self.prices = prices if prices is not None else load_prices(self.settings.prices)
        # The grounding policy runs last, after the REQUIRED checks (DESIGN.md section 10).
        checks = (*validators, policy_validator(self.settings.grounding_policy))
        self._responder = Responder(self.settings, self.prices, checks, resolver)
        self.tracing = Tracing(self.settings, tracer_provider)
        self.cache = _response_cache(cache, self.settings)
        for name, secret in self.settings.named_secrets().items():
            register_secret(secret, name=name)

    @classmethod
    def from_env(cls, **options: Any) -> Self:
        """Build settings once from the environment and ``.env``, then the router."""
        return cls(RouterSettings(), **options)

    def with_adapters(self, adapters: Mapping[Vendor, Adapter]) -> Self:
        """This router calling ``adapters`` instead of its own (the batch engines gate each
        attempt so): settings, retries, checks, prices, tracing and cache are shared, and
        closing it closes ``adapters`` only."""
        twin = copy.copy(self)
        twin._adapters = dict(adapters)
        twin._adapters_lock = threading.Lock()
        return twin

    def adapter_for(self, vendor: Vendor) -> Adapter:
        """The vendor's adapter, imported and created on first use, then reused."""
        return self._adapter(provider(vendor))

    def route(
        self, request: RequestInput, *, fallbacks: Sequence[Any] | None = None
    ) -> LLMResponse:
        """Send one request and return the validated response, or raise a ``RouterError``.

        ``fallbacks`` (vendors, or ``{"vendor": ..., "model": ...}``) replaces the request's
        own: the vendors tried in order when a call fails as another vendor may not
        (:mod:`router.fallback`).
        """
        started = time.perf_counter()
        checked = _with_fallbacks(as_request(request), fallbacks)
        if not checked.fallbacks:
            return self._route_vendor(checked, started)
        attempts, failure = Attempts(), None
        with self._fallback_span(checked):
            for index, attempt in enumerate(chain_of(checked, self.settings)):
                attempts.start()
                if index and self._skipped(attempt, attempts, stream=False):
                    continue
                try:
                    response = self._route_vendor(attempt, started)
                except RouterError as error:
                    failure = error
                    if attempts.failed(attempt, error):
                        continue
                    attempts.exhausted(error)
                    raise
                return attempts.answered(attempt, response)
        raise attempts.exhausted(_last(failure))

    async def aroute(
        self, request: RequestInput, *, fallbacks: Sequence[Any] | None = None
    ) -> LLMResponse:
        """The async twin of :meth:`route`."""
        started = time.perf_counter()
        checked = _with_fallbacks(as_request(request), fallbacks)
        if not checked.fallbacks:
            return await self._aroute_vendor(checked, started)
        attempts, failure = Attempts(), None
        with self._fallback_span(checked):
            for index, attempt in enumerate(chain_of(checked, self.settings)):
                attempts.start()
                if index and self._skipped(attempt, attempts, stream=False):
                    continue
                try:
                    response = await self._aroute_vendor(attempt, started)
                except RouterError as error:
                    failure = error
                    if attempts.failed(attempt, error):
                        continue
                    attempts.exhausted(error)
                    raise
                return attempts.answered(attempt, response)
        raise attempts.exhausted(_last(failure))

    def stream(
        self, request: RequestInput, *, fallbacks: Sequence[Any] | None = None
    ) -> Iterator[StreamEvent]:
        """Stream one request: its events, ending with ``Completed`` (see router.streaming).

        The request is checked now (a malformed one, or a provider that cannot stream, raises
        ``RequestValidationError`` here); the call starts when the iteration does. With
        ``fallbacks``, the next vendor is tried only while no event has reached the caller.
        """
        started = time.perf_counter()
        checked = _with_fallbacks(as_request(request), fallbacks)
        parts = self._stream_parts(checked)
        if not checked.fallbacks:
            return self._stream_events(checked, parts, started)
        return self._stream_chain(checked, parts, started)

    def astream(
        self, request: RequestInput, *, fallbacks: Sequence[Any] | None = None
    ) -> AsyncIterator[StreamEvent]:
        """The async twin of :meth:`stream` (iterate it with ``async for``)."""
        started = time.perf_counter()
        checked = _with_fallbacks(as_request(request), fallbacks)
        parts = self._stream_parts(checked)
        if not checked.fallbacks:
            return self._astream_events(checked, parts, started)
        return self._astream_chain(checked, parts, started)

    # -- one vendor, and the fallbacks after it ---------------------------------------------

    def _route_vendor(self, checked: LLMRequest, started: float) -> LLMResponse:
        """Route ``checked`` to its own vendor: one span, the retries, a re-ask if set."""
        if self.cache is not None and (hit := self.cache.get(checked)) is not None:
            return hit
        row = provider(checked.vendor)
        with self.tracing.route(checked, row) as span, self._call_context(checked):
            try:
                response = self._route_once(checked, row, started, attempts_before=0)
            except GroundingRequiredFailedError as failure:
                earlier, paid = self._reask(checked, failure, span)
                try:
                    response = self._route_once(checked, row, started, attempts_before=earlier)
                except RouterError as error:
                    with_earlier_cost(error, paid)
                    raise
                with_earlier_cost(response, paid)
            span.succeeded(response)
            if self.cache is not None:
                self.cache.put(checked, response)
            return response

    async def _aroute_vendor(self, checked: LLMRequest, started: float) -> LLMResponse:
        """The async twin of :meth:`_route_vendor`."""
        if self.cache is not None and (hit := self.cache.get(checked)) is not None:
            return hit
        row = provider(checked.vendor)
        with self.tracing.route(checked, row) as span, self._call_context(checked):
            try:
                response = await self._aroute_once(checked, row, started, attempts_before=0)
            except GroundingRequiredFailedError as failure:
                earlier, paid = self._reask(checked, failure, span)
                try:
                    response = await self._aroute_once(
                        checked, row, started, attempts_before=earlier
                    )
                except RouterError as error:
                    with_earlier_cost(error, paid)
                    raise
                with_earlier_cost(response, paid)
            span.succeeded(response)
            if self.cache is not None:
                self.cache.put(checked, response)
            return response

    def _fallback_span(self, request: LLMRequest) -> OperationSpan | NoSpan:
        """The span around a call with fallbacks: each vendor's call is one child span."""
        return self.tracing.operation(
            FALLBACK_SPAN,
            {FALLBACK_VENDORS: [request.vendor, *(f.vendor for f in request.fallbacks)]},
        )

    def _skipped(self, request: LLMRequest, attempts: Attempts, *, stream: bool) -> bool:
        """True (and recorded) when ``request``'s vendor cannot take it, or cannot stream it."""
        try:
            if stream:
                self._stream_parts(request)
            else:
                check_request(request, provider(request.vendor))
        except RequestValidationError as refusal:
            attempts.skipped(request, refusal)
            return True
        return False

    def _stream_chain(
        self, checked: LLMRequest, first: StreamParts, started: float
    ) -> Iterator[StreamEvent]:
        # The parent span is current only around each step, as in _stream_events.
        attempts, failure = Attempts(), None
        parent = self._fallback_span(checked)
        try:
            for index, attempt in enumerate(chain_of(checked, self.settings)):
                attempts.start()
                if index and self._skipped(attempt, attempts, stream=True):
                    continue
                parts = first if not index else self._stream_parts(attempt)
                events, delivered = self._stream_events(attempt, parts, started), 0
                try:
                    while True:
                        with parent.active():
                            try:
                                event = next(events)
                            except StopIteration:
                                return
                        if isinstance(event, Completed):
                            event = Completed(attempts.answered(attempt, event.response))
                        delivered += 1
                        yield event
                except RouterError as error:
                    failure = error
                    if attempts.failed(attempt, error) and not delivered:
                        continue
                    attempts.exhausted(error)
                    raise
                finally:
                    events.close()
            raise attempts.exhausted(_last(failure))
        finally:
            parent.end()

    async def _astream_chain(
        self, checked: LLMRequest, first: StreamParts, started: float
    ) -> AsyncIterator[StreamEvent]:
        # As in _stream_chain.
        attempts, failure = Attempts(), None
        parent = self._fallback_span(checked)
        try:
            for index, attempt in enumerate(chain_of(checked, self.settings)):
                attempts.start()
                if index and self._skipped(attempt, attempts, stream=True):
                    continue
                parts = first if not index else self._stream_parts(attempt)
                events, delivered = self._astream_events(attempt, parts, started), 0
                try:
                    while True:
                        with parent.active():
                            try:
                                event = await anext(events)
                            except StopAsyncIteration:
                                return
                        if isinstance(event, Completed):
                            event = Completed(attempts.answered(attempt, event.response))
                        delivered += 1
                        yield event
                except RouterError as error:
                    failure = error
                    if attempts.failed(attempt, error) and not delivered:
                        continue
                    attempts.exhausted(error)
                    raise
                finally:
                    await events.aclose()
            raise attempts.exhausted(_last(failure))
        finally:
            parent.end()

    def route_many(
        self,
        request: RequestInput,
        vendors: Sequence[str],
        *,
        models: Mapping[str, str] | None = None,
        require: Require = "any",
    ) -> FanoutResult:
        """Ask every vendor of ``vendors`` the same question at once (see :mod:`router.fanout`).

        Each vendor gets ``models[vendor]``, else the request's own model when it names that
        vendor, else its configured or registry default; ``require`` ("any" or "all") says
        what the whole call needs, and a ``FanoutError`` keeps the partial result.
        """
        return fan_out(self, request, vendors, models=models, require=require)

    async def aroute_many(
        self,
        request: RequestInput,
        vendors: Sequence[str],
        *,
        models: Mapping[str, str] | None = None,
        require: Require = "any",
    ) -> FanoutResult:
        """The async twin of :meth:`route_many`."""
        return await afan_out(self, request, vendors, models=models, require=require)

    def close(self) -> None:
        """Release the SDK clients of every adapter created so far."""
        for adapter in self._created():
            adapter.close()

    async def aclose(self) -> None:
        """Release the async SDK clients created on the running event loop, then the rest."""
        for adapter in self._created():
            await adapter.aclose()
            adapter.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- the adapters -----------------------------------------------------------------------

    def _adapter(self, row: ProviderRow) -> Adapter:
        """The adapter of ``row``'s vendor (the registry row the call already holds)."""
        adapter = self._adapters.get(row.vendor)
        return adapter if adapter is not None else self._new_adapter(row)

    def _new_adapter(self, row: ProviderRow) -> Adapter:
        with self._adapters_lock:
            adapter = self._adapters.get(row.vendor)
            if adapter is None:
                # The registry imports the provider package (and its SDK) only now, and the
                # suffix list is read now too: neither is paid within a call's deadline.
                adapter = self._adapters[row.vendor] = row.new_adapter()
                load_suffix_list()
            return adapter

    def _created(self) -> list[Adapter]:
        with self._adapters_lock:
            return list(self._adapters.values())

    # -- streams ----------------------------------------------------------------------------

    def _stream_parts(self, request: LLMRequest) -> StreamParts:
        row = provider(request.vendor)
        check_request(request, row)
        if not row.capabilities.streaming:
            raise RequestValidationError(
                f"vendor: {row.label} cannot stream through the router; use route()",
                field="vendor",
                vendor=request.vendor,
                model=request.model,
                request_id=request.request_id,
            )
        adapter: Any = guarded(lambda: self._adapter(row))
        streaming: StreamingAdapter = adapter
        return StreamParts(streaming, row, self.settings, self._retry, self._responder)

    def _call_context(self, request: LLMRequest) -> CallLogContext:
        """The debug switch and the request's log context, for one call or one stream step.

        The request's id, vendor and model go with every log event emitted while it is routed:
        structlog context variables are task- and thread-local, so in a concurrent batch (and
        in each batch worker process, which routes through here too) every event, the forensic
        extraction events included, says which request it belongs to. Renderers that merge
        context variables show them (structlog's default chain and the CLI's do).
        """
        return CallLogContext(
            self.settings.debug_grounding,
            request_id=request.request_id,
            vendor=request.vendor,
            model=request.model,
        )

    def _stream_events(
        self, request: LLMRequest, parts: StreamParts, started: float
    ) -> Generator[StreamEvent]:
        # The debug switch, the log context and the call's span are set around each step, never
        # held across a yield: a caller may leave the stream half-read, and it is then closed
        # wherever it is collected.
        span = self.tracing.route(request, parts.row, stream=True)
        events, issued, delivered = run_stream(request, parts, started), time.perf_counter(), 0
        try:
            while True:
                with self._call_context(request), span.active():
                    try:
                        event = next(events)
                    except StopIteration:
                        return
                    except RouterError as error:
                        self._stream_failed(request, span, error)
                        raise
                _traced_event(span, event, issued=issued, first=not delivered)
                delivered += 1
                yield event
        except GeneratorExit:
            span.set({STREAM_ABANDONED: True})
            raise
        finally:
            with self._call_context(request), span.active():
                events.close()
            span.end()

    async def _astream_events(
        self, request: LLMRequest, parts: StreamParts, started: float
    ) -> AsyncGenerator[StreamEvent]:
        # As in _stream_events; here it matters most: an async generator left half-read is
        # closed by the event loop in a context of its own, where no outer setting can be reset.
        span = self.tracing.route(request, parts.row, stream=True)
        events, issued, delivered = arun_stream(request, parts, started), time.perf_counter(), 0
        try:
            while True:
                with self._call_context(request), span.active():
                    try:
                        event = await anext(events)
                    except StopAsyncIteration:
                        return
                    except RouterError as error:
                        self._stream_failed(request, span, error)
                        raise
                _traced_event(span, event, issued=issued, first=not delivered)
                delivered += 1
                yield event
        except GeneratorExit:
            span.set({STREAM_ABANDONED: True})
            raise
        finally:
            with self._call_context(request), span.active():
                await events.aclose()
            span.end()

    # -- one pass: the adapter under retries, then the one last step ------------------------

    def _route_once(
        self, request: LLMRequest, row: ProviderRow, started: float, attempts_before: int
    ) -> LLMResponse:
        try:
            check_request(request, row)
            adapter = guarded(lambda: self._adapter(row))

            def attempt() -> tuple[AdapterResult, CallLimits]:
                # One provider call within its limits: a deadline of timeout_s in all, and
                # replies, citations and forensic events bounded (router.call_limits).
                limits = self._limits(request)
                with limits_scope(limits):
                    try:
                        return guarded(lambda: adapter.complete(request, self.settings)), limits
                    except RouterError as error:
                        limited = _limit_error(limits, row)
                        if limited is None:
                            raise
                        raise limited from error

            (result, limits), attempts = self._retry.call(attempt)
            if self.settings.resolve_redirects:  # resolution gets a deadline of its own
                with limits_scope(self._limits(request)):
                    self._responder.resolve(result)
            return self._respond(
                request,
                row,
                result,
                attempts=attempts_before + attempts,
                started=started,
                limits=limits,
            )
        except RouterError as error:
            self._fail(request, error)
            raise

    async def _aroute_once(
        self, request: LLMRequest, row: ProviderRow, started: float, attempts_before: int
    ) -> LLMResponse:
        try:
            check_request(request, row)
            adapter = guarded(lambda: self._adapter(row))

            async def attempt() -> tuple[AdapterResult, CallLimits]:
                limits = self._limits(request)
                try:
                    result = await run_within(
                        limits, lambda: aguarded(lambda: adapter.acomplete(request, self.settings))
                    )
                except (RouterError, DeadlineExceeded) as error:
                    limited = _limit_error(limits, row)
                    if limited is None and isinstance(error, RouterError):
                        raise
                    raise limited or unexpected(error) from error
                return result, limits

            (result, limits), attempts = await self._retry.acall(attempt)
            if self.settings.resolve_redirects:
                with limits_scope(self._limits(request)):
                    await self._responder.aresolve(result)
            return self._respond(
                request,
                row,
                result,
                attempts=attempts_before + attempts,
                started=started,
                limits=limits,
            )
        except RouterError as error:
            self._fail(request, error)
            raise

    def _respond(
        self,
        request: LLMRequest,
        row: ProviderRow,
        result: AdapterResult,
        *,
        attempts: int,
        started: float,
        limits: CallLimits,
    ) -> LLMResponse:
        return self._responder.respond(
            request, row.label, result, attempts=attempts, started=started, limits=limits
        )

    def _limits(self, request: LLMRequest) -> CallLimits:
        return limits_for(request, self.settings)

    def _reask(
        self,
        request: LLMRequest,
        failure: GroundingRequiredFailedError,
        span: RouteTrace | NoSpan,
    ) -> tuple[int, Cost | None]:
        """The attempts the failed answer took and what it cost, when the setting asks again;
        else ``failure``. Its cost goes into the final response's (or error's) usage."""
        if not self.settings.reask_on_required_failure:
            raise failure
        kept = failure.response
        cost = kept.usage.cost if isinstance(kept, LLMResponse) else None
        log.info(
            "grounding_required_reask",
            vendor=request.vendor,
            model=request.model,
            request_id=request.request_id,
            reason=failure.reason,
            cost=cost.total if cost is not None else None,
        )
        span.event("grounding_router.reask", {"grounding_router.reask.reason": failure.reason})
        return (kept.attempts if kept else 1), cost

    def _stream_failed(
        self, request: LLMRequest, span: RouteTrace | NoSpan, error: RouterError
    ) -> None:
        self._fail(request, error)
        span.failed(error)

    @staticmethod
    def _fail(request: LLMRequest, error: RouterError) -> None:
        """Add the request's context to the error and log it once."""
        error.with_context(
            vendor=request.vendor, model=request.model, request_id=request.request_id
        )
        log.info(
            "route_failed",
            vendor=request.vendor,
            model=request.model,
            request_id=request.request_id,
            error=type(error).__name__,
            reason=error.reason,
            status_code=error.status_code,
        )


UnifiedLLMAdapter = Router
"""The router's name in the original spec, kept as an alias (``router.unified_llm_adapter``)."""


def _traced_event(
    span: RouteTrace | NoSpan, event: StreamEvent, *, issued: float, first: bool
) -> None:
    """Note a streamed event on the call's span: the first one's delay, the final response."""
    if first:
        span.set({FIRST_CHUNK_S: time.perf_counter() - issued})
    if isinstance(event, Completed):
        span.succeeded(event.response)


def _response_cache(
    given: ResponseCache | str | Path | None, settings: RouterSettings
) -> ResponseCache | None:
    """The router's response cache: the one given, else the settings' file, else none."""
    if given is None and settings.cache is None:
        return None
    from router.cache import ResponseCache  # only a router with a cache loads it

    if isinstance(given, ResponseCache):
        return given
    return ResponseCache(
        given if given is not None else settings.cache,  # type: ignore[arg-type]
        ttl_s=settings.cache_ttl_s,
        max_entries=settings.cache_max_entries,
        store_restricted_grounded=settings.cache_google_grounded,
    )


def _with_fallbacks(request: LLMRequest, fallbacks: Sequence[Any] | None) -> LLMRequest:
    """``request`` with the caller's ``fallbacks`` instead of its own (checked as the request)."""
    if fallbacks is None:
        return request
    return as_request({**request.model_dump(exclude_unset=True), "fallbacks": list(fallbacks)})


def _last(failure: RouterError | None) -> RouterError:
    """The last vendor's error; the request's own vendor is never skipped, so there is one."""
    if failure is None:  # pragma: no cover - the first vendor either answers or fails
        return RouterError("no vendor was tried", reason="no_vendor")
    return failure


def _limit_error(limits: CallLimits, row: ProviderRow) -> RouterError | None:
    """The error of the call limit that ended the attempt, if one did (whatever the SDK made of
    it on its way out: a timeout, a connection error, an unexpected exception)."""
    if limits.fired is None:
        return None
    return limits.error(row.label, row.vendor)


_default_router: Router | None = None
_default_router_lock = threading.Lock()


def shared_router() -> Router:
    """The process-wide router behind ``route()``, built from the environment on first use."""
    global _default_router  # noqa: PLW0603 - one lazily built router per process, on purpose
    if _default_router is None:
        with _default_router_lock:
            if _default_router is None:
                _default_router = Router.from_env()
    return _default_router


def route(request: RequestInput, *, fallbacks: Sequence[Any] | None = None) -> LLMResponse:
    """Route one request with the process-wide router (settings from the environment)."""
    return shared_router().route(request, fallbacks=fallbacks)


async def aroute(request: RequestInput, *, fallbacks: Sequence[Any] | None = None) -> LLMResponse:
    """The async twin of :func:`route`."""
    return await shared_router().aroute(request, fallbacks=fallbacks)


def stream(
    request: RequestInput, *, fallbacks: Sequence[Any] | None = None
) -> Iterator[StreamEvent]:
    """Stream one request with the process-wide router (see :mod:`router.streaming`)."""
    return shared_router().stream(request, fallbacks=fallbacks)


def astream(
    request: RequestInput, *, fallbacks: Sequence[Any] | None = None
) -> AsyncIterator[StreamEvent]:
    """The async twin of :func:`stream`."""
    return shared_router().astream(request, fallbacks=fallbacks)


def route_many(
    request: RequestInput,
    vendors: Sequence[str],
    *,
    models: Mapping[str, str] | None = None,
    require: Require = "any",
    router: Router | None = None,
) -> FanoutResult:
    """:meth:`Router.route_many` of ``router``, else of the process-wide router."""
    return (router or shared_router()).route_many(request, vendors, models=models, require=require)


async def aroute_many(
    request: RequestInput,
    vendors: Sequence[str],
    *,
    models: Mapping[str, str] | None = None,
    require: Require = "any",
    router: Router | None = None,
) -> FanoutResult:
    """The async twin of :func:`route_many`."""
    chosen = router or shared_router()
    return await chosen.aroute_many(request, vendors, models=models, require=require)
