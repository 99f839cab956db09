"""UnifiedLLMAdapter: the single entry point backend pipelines call.

``route(request)`` validates the request (including what the vendor's registry row says its
provider can do: domain filters, documents), picks the vendor's adapter from the provider registry
(:mod:`adapters.registry`; imported lazily, created once and reused), runs it under the one retry
layer, resolves redirect links when ``resolve_redirects`` is on (for every provider alike, see
:mod:`router.citations.resolution`), assembles the ``LLMResponse`` (with its estimated cost,
:mod:`router.pricing`) and runs the grounding validators, which fail closed. Only
``RouterError`` subclasses leave this module. ``stream(request)`` does the same as a stream of
events (:mod:`router.streaming` says how it behaves; :mod:`router.stream_call` runs it).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

import structlog

from adapters.base import Adapter, AdapterResult, StreamingAdapter
from adapters.registry import check_request, provider
from router.assemble import assemble_response
from router.call_limits import (
    CallLimits,
    DeadlineExceeded,
    limits_for,
    limits_scope,
    run_within,
)
from router.citations.domains import load_suffix_list
from router.citations.redirects import RedirectResolver
from router.citations.resolution import redirect_link_urls, with_resolved_redirects
from router.errors import (
    GroundingRequiredFailedError,
    RequestValidationError,
    ResponseParseError,
    RouterError,
)
from router.grounding.enforce import policy_validator
from router.logging import CallLogContext, grounding_debug_enabled, register_secret
from router.nesting import nesting_depth
from router.pricing import Metered, PriceBook
from router.retry import AsyncSleep, RetryPolicy, Sleep
from router.settings import RouterSettings
from router.stream_call import StreamParts, arun_stream, run_stream
from router.stream_events import Completed, StreamEvent
from router.tracing import FIRST_CHUNK_S, STREAM_ABANDONED, NoSpan, RouteTrace, Tracing
from router.types import Cost, LLMRequest, LLMResponse, Vendor
from router.validation import DEFAULT_VALIDATORS, Validator, run_validators

__all__ = [
    "RequestInput",
    "Router",
    "UnifiedLLMAdapter",
    "aroute",
    "as_request",
    "astream",
    "route",
    "shared_router",
    "stream",
]

RequestInput = LLMRequest | Mapping[str, Any]
T = TypeVar("T")

log = structlog.get_logger(__name__)


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


class UnifiedLLMAdapter:
    """Routes requests to provider adapters; safe to share between threads and tasks.

    ``adapters`` replaces the built-in adapter of a vendor (tests, custom transports);
    ``validators`` replaces the grounding checks (a grounding policy is still enforced after
    them); ``sleep``/``async_sleep`` are what the retry layer waits with, injectable so tests
    never wait; ``prices`` replaces the price book read from the providers' tables and
    ``settings.prices``. A price file that cannot be read is a
    ``ConfigurationError`` here, at construction. ``resolver`` replaces the
    ``RedirectResolver`` built from the settings; either is used only while
    ``settings.resolve_redirects`` is on. ``tracer_provider`` is the OpenTelemetry tracer
    provider of this router's spans, instead of the global one (:mod:`router.tracing`).
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
    ) -> None:
        self.settings = settings if settings is not None else RouterSettings()
        self._adapters: dict[Vendor, Adapter] = dict(adapters or {})
        self._adapters_lock = threading.Lock()
        # The grounding policy runs last, after the REQUIRED checks (DESIGN.md section 10).
        self._validators = (*validators, policy_validator(self.settings.grounding_policy))
        self._retry = RetryPolicy(self.settings, sleep=sleep, async_sleep=async_sleep)
        self.prices = prices if prices is not None else PriceBook.load(self.settings.prices)
        self._resolver = resolver
        self.tracing = Tracing(self.settings, tracer_provider)
        for secret in self.settings.secret_values():
            register_secret(secret)

    @classmethod
    def from_env(cls, **options: Any) -> Self:
        """Build settings once from the environment and ``.env``, then the router."""
        return cls(RouterSettings(), **options)

    def adapter_for(self, vendor: Vendor) -> Adapter:
        """The vendor's adapter, imported and created on first use, then reused."""
        adapter = self._adapters.get(vendor)
        if adapter is not None:
            return adapter
        with self._adapters_lock:
            adapter = self._adapters.get(vendor)
            if adapter is None:
                # The registry imports the provider package (and its SDK) only now, and the
                # suffix list is read now too: neither is paid within a call's deadline.
                adapter = self._adapters[vendor] = provider(vendor).new_adapter()
                load_suffix_list()
            return adapter

    def route(self, request: RequestInput) -> LLMResponse:
        """Send one request and return the validated response, or raise a ``RouterError``."""
        started = time.perf_counter()
        checked = as_request(request)
        with self.tracing.route(checked) as span, self._call_context(checked):
            try:
                response = self._route_once(checked, started, attempts_before=0)
            except GroundingRequiredFailedError as failure:
                if not self.settings.reask_on_required_failure:
                    raise
                self._log_reask(checked, failure, span)
                earlier = failure.response.attempts if failure.response else 1
                response = self._route_once(checked, started, attempts_before=earlier)
            span.succeeded(response)
            return response

    async def aroute(self, request: RequestInput) -> LLMResponse:
        """The async twin of :meth:`route`."""
        started = time.perf_counter()
        checked = as_request(request)
        with self.tracing.route(checked) as span, self._call_context(checked):
            try:
                response = await self._aroute_once(checked, started, attempts_before=0)
            except GroundingRequiredFailedError as failure:
                if not self.settings.reask_on_required_failure:
                    raise
                self._log_reask(checked, failure, span)
                earlier = failure.response.attempts if failure.response else 1
                response = await self._aroute_once(checked, started, attempts_before=earlier)
            span.succeeded(response)
            return response

    def stream(self, request: RequestInput) -> Iterator[StreamEvent]:
        """Stream one request: its events, ending with ``Completed`` (see router.streaming).

        The request is checked now (a malformed one, or a provider that cannot stream, raises
        ``RequestValidationError`` here); the call starts when the iteration does.
        """
        started = time.perf_counter()
        checked = as_request(request)
        parts = self._stream_parts(checked)
        return self._stream_events(checked, parts, started)

    def astream(self, request: RequestInput) -> AsyncIterator[StreamEvent]:
        """The async twin of :meth:`stream` (iterate it with ``async for``)."""
        started = time.perf_counter()
        checked = as_request(request)
        parts = self._stream_parts(checked)
        return self._astream_events(checked, parts, started)

    def close(self) -> None:
        """Release the SDK clients of every adapter created so far."""
        with self._adapters_lock:
            adapters = list(self._adapters.values())
        for adapter in adapters:
            adapter.close()

    async def aclose(self) -> None:
        """Release the async SDK clients created on the running event loop, then the rest."""
        with self._adapters_lock:
            adapters = list(self._adapters.values())
        for adapter in adapters:
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

    # -- streams ----------------------------------------------------------------------------

    def _stream_parts(self, request: LLMRequest) -> StreamParts:
        check_request(request)
        row = provider(request.vendor)
        if not row.capabilities.streaming:
            raise RequestValidationError(
                f"vendor: {row.label} cannot stream through the router; use route()",
                field="vendor",
                vendor=request.vendor,
                model=request.model,
                request_id=request.request_id,
            )
        adapter: Any = _guarded(lambda: self.adapter_for(request.vendor))
        streaming: StreamingAdapter = adapter
        return StreamParts(
            streaming,
            self.settings,
            self._retry,
            self._finish,
            _unexpected,
            self._resolve_redirects,
            self._aresolve_redirects,
        )

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
    ) -> Iterator[StreamEvent]:
        # The debug switch, the log context and the call's span are set around each step, never
        # held across a yield: a caller may leave the stream half-read, and it is then closed
        # wherever it is collected.
        span = self.tracing.route(request, stream=True)
        events, issued, delivered = run_stream(request, parts, started), time.perf_counter(), 0
        try:
            while True:
                with self._call_context(request), span.active():
                    try:
                        event = next(events)
                    except StopIteration:
                        return
                    except RouterError as error:
                        self._fail(request, error)
                        span.failed(error)
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
    ) -> AsyncIterator[StreamEvent]:
        # As in _stream_events; here it matters most: an async generator left half-read is
        # closed by the event loop in a context of its own, where no outer setting can be reset.
        span = self.tracing.route(request, stream=True)
        events, issued, delivered = arun_stream(request, parts, started), time.perf_counter(), 0
        try:
            while True:
                with self._call_context(request), span.active():
                    try:
                        event = await anext(events)
                    except StopAsyncIteration:
                        return
                    except RouterError as error:
                        self._fail(request, error)
                        span.failed(error)
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

    # -- one pass: adapter under retries, then assembly and validation ----------------------

    def _route_once(self, request: LLMRequest, started: float, attempts_before: int) -> LLMResponse:
        try:
            check_request(request)
            adapter = _guarded(lambda: self.adapter_for(request.vendor))

            def attempt() -> tuple[AdapterResult, CallLimits]:
                # One provider call within its limits: a deadline of timeout_s in all, and
                # replies, citations and forensic events bounded (router.call_limits).
                limits = self._limits(request)
                with limits_scope(limits):
                    try:
                        return _guarded(lambda: adapter.complete(request, self.settings)), limits
                    except RouterError as error:
                        limited = _limit_error(limits, request)
                        if limited is None:
                            raise
                        raise limited from error

            (result, limits), attempts = self._retry.call(attempt)
            with limits_scope(self._limits(request)):  # resolution gets a deadline of its own
                self._resolve_redirects(result)
            return self._finish(request, result, attempts_before + attempts, started, limits)
        except RouterError as error:
            self._fail(request, error)
            raise

    async def _aroute_once(
        self, request: LLMRequest, started: float, attempts_before: int
    ) -> LLMResponse:
        try:
            check_request(request)
            adapter = _guarded(lambda: self.adapter_for(request.vendor))

            async def attempt() -> tuple[AdapterResult, CallLimits]:
                limits = self._limits(request)
                try:
                    result = await run_within(
                        limits, lambda: _aguarded(lambda: adapter.acomplete(request, self.settings))
                    )
                except (RouterError, DeadlineExceeded) as error:
                    limited = _limit_error(limits, request)
                    if limited is None and isinstance(error, RouterError):
                        raise
                    raise limited or _unexpected(error) from error
                return result, limits

            (result, limits), attempts = await self._retry.acall(attempt)
            with limits_scope(self._limits(request)):
                await self._aresolve_redirects(result)
            return self._finish(request, result, attempts_before + attempts, started, limits)
        except RouterError as error:
            self._fail(request, error)
            raise

    def _resolve_redirects(self, result: AdapterResult) -> None:
        """Resolve the redirect links of ``result``'s citations, when resolution is on."""
        if (links := self._links_to_resolve(result)) is not None:
            _resolve_links(result, links[0].resolve_many_sync(links[1]))

    async def _aresolve_redirects(self, result: AdapterResult) -> None:
        """The async twin of :meth:`_resolve_redirects`."""
        if (links := self._links_to_resolve(result)) is not None:
            _resolve_links(result, await links[0].resolve_many(links[1]))

    def _links_to_resolve(self, result: AdapterResult) -> tuple[RedirectResolver, list[str]] | None:
        """The resolver and the redirect links of ``result`` to ask it about, or None.

        None while ``resolve_redirects`` is off or when no citation is a redirect link; the
        resolver is built on first use.
        """
        if not self.settings.resolve_redirects:
            return None
        urls = redirect_link_urls(result.citations)
        if not urls:
            return None
        with self._adapters_lock:
            if self._resolver is None:
                self._resolver = RedirectResolver(self.settings)
            return self._resolver, urls

    def _limits(self, request: LLMRequest) -> CallLimits:
        return limits_for(request, self.settings)

    def _finish(
        self,
        request: LLMRequest,
        result: AdapterResult,
        attempts: int,
        started: float,
        limits: CallLimits | None = None,
    ) -> LLMResponse:
        _check_nesting(result, self.settings.max_json_depth)
        if limits is not None:
            _note_cuts(request, result, limits)
        cost = self._cost(request, result)
        response = _guarded(
            lambda: assemble_response(
                request, result, attempts=attempts, latency_ms=_elapsed_ms(started), cost=cost
            )
        )
        for warning in result.warnings:
            log.warning(
                warning, vendor=request.vendor, model=request.model, request_id=request.request_id
            )
        run_validators(self._validators, request, response)
        if grounding_debug_enabled():
            log.debug(
                "route_completed",
                vendor=request.vendor,
                model=request.model,
                request_id=request.request_id,
                attempts=attempts,
                citations=len(response.citations),
                grounded_effective=response.grounded_effective,
                latency_ms=round(response.latency_ms, 1),
            )
        return response

    def _cost(self, request: LLMRequest, result: AdapterResult) -> Cost | None:
        """The reply's cost; a bug in pricing costs the estimate, never the response."""
        metered = Metered(
            usage=result.usage,
            tool_calls=result.tool_call_count,
            queries=result.web_search_queries,
        )
        try:
            return self.prices.cost(request.vendor, (result.model_version, request.model), metered)
        except Exception:
            log.exception("cost_estimate_failed", vendor=request.vendor, model=request.model)
            return None

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

    @staticmethod
    def _log_reask(
        request: LLMRequest, failure: GroundingRequiredFailedError, span: RouteTrace | NoSpan
    ) -> None:
        # The answer asked again for is paid for too, but only the final response carries a cost.
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


Router = UnifiedLLMAdapter


def _traced_event(
    span: RouteTrace | NoSpan, event: StreamEvent, *, issued: float, first: bool
) -> None:
    """Note a streamed event on the call's span: the first one's delay, the final response."""
    if first:
        span.set({FIRST_CHUNK_S: time.perf_counter() - issued})
    if isinstance(event, Completed):
        span.succeeded(event.response)


def _limit_error(limits: CallLimits, request: LLMRequest) -> RouterError | None:
    """The error of the call limit that ended the attempt, if one did (whatever the SDK made of
    it on its way out: a timeout, a connection error, an unexpected exception)."""
    if limits.fired is None:
        return None
    return limits.error(provider(request.vendor).label, request.vendor)


def _note_cuts(request: LLMRequest, result: AdapterResult, limits: CallLimits) -> None:
    """Say so when a limit cut the reply's citations or its forensic events."""
    if limits.citations_cut:
        kept = limits.max_citations
        result.warnings.append(
            f"[CITATIONS] {provider(request.vendor).label}: the reply named more sources than "
            f"GROUNDING_ROUTER_MAX_CITATIONS={kept}; the first {kept} were kept, "
            f"{limits.citations_cut} cut"
        )
    if limits.max_debug_events is not None and limits.debug_events > limits.max_debug_events:
        log.warning(
            "forensic_events_cut",
            vendor=request.vendor,
            request_id=request.request_id,
            kept=limits.max_debug_events,
            setting="GROUNDING_ROUTER_MAX_DEBUG_EVENTS",
        )


def _check_nesting(result: AdapterResult, limit: int) -> None:
    """A JSON answer deeper than the limit is refused: no response could carry it as JSON."""
    if result.parsed is None:
        return
    if nesting_depth(result.parsed, stop_at=limit) > limit:
        raise ResponseParseError(
            f"the JSON answer nests more than {limit} levels deep, more than a response may hold "
            "(GROUNDING_ROUTER_MAX_JSON_DEPTH)",
            reason="json_too_deep",
        )


def _elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _resolve_links(result: AdapterResult, targets: Mapping[str, str]) -> None:
    """Put the resolved targets of ``result``'s redirect links into its citations."""
    result.citations = _guarded(lambda: with_resolved_redirects(result.citations, targets))


def _unexpected(exc: BaseException) -> RouterError:
    return RouterError(
        f"unexpected {type(exc).__name__} inside the router: {exc}", reason="unexpected_error"
    )


def _guarded(call: Callable[[], T]) -> T:
    """Run ``call``; anything outside the RouterError tree becomes a RouterError (not retried)."""
    try:
        return call()
    except RouterError:
        raise
    except Exception as exc:
        raise _unexpected(exc) from exc


async def _aguarded(call: Callable[[], Awaitable[T]]) -> T:
    try:
        return await call()
    except RouterError:
        raise
    except Exception as exc:
        raise _unexpected(exc) from exc


_default_router: UnifiedLLMAdapter | None = None
_default_router_lock = threading.Lock()


def shared_router() -> UnifiedLLMAdapter:
    """The process-wide router behind ``route()``, built from the environment on first use."""
    global _default_router  # noqa: PLW0603 - one lazily built router per process, on purpose
    if _default_router is None:
        with _default_router_lock:
            if _default_router is None:
                _default_router = UnifiedLLMAdapter.from_env()
    return _default_router


def route(request: RequestInput) -> LLMResponse:
    """Route one request with the process-wide router (settings from the environment)."""
    return shared_router().route(request)


async def aroute(request: RequestInput) -> LLMResponse:
    """The async twin of :func:`route`."""
    return await shared_router().aroute(request)


def stream(request: RequestInput) -> Iterator[StreamEvent]:
    """Stream one request with the process-wide router (see :mod:`router.streaming`)."""
    return shared_router().stream(request)


def astream(request: RequestInput) -> AsyncIterator[StreamEvent]:
    """The async twin of :func:`stream`."""
    return shared_router().astream(request)
