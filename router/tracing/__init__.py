"""OpenTelemetry spans of routed calls, batches and fan-outs; free when nobody traces.

Install ``grounding-router[otel]`` (``opentelemetry-api`` only) and configure a tracer
provider the usual way (the OpenTelemetry SDK, ``opentelemetry-instrument``): every ``route()``,
``aroute()``, ``stream()`` and ``astream()`` then makes one CLIENT span named
``{gen_ai.operation.name} {model}`` with the GenAI semantic-convention attributes and
grounding-router's own (see :mod:`router.tracing.attributes`), retries as
``grounding_router.retry`` events, and an error status with the reason when it fails.
``route_many`` and batches get a parent span over their calls; batch worker processes continue
the parent's trace (their spans need a tracer provider in each worker: ``worker_setup`` of
``run_batch``, or ``opentelemetry-instrument``, whose setup the spawned workers inherit).
Without a configured provider nothing is imported and each call costs one dictionary lookup.

For code built on the router, :meth:`Tracing.route` gives the span of a routed call (streamed
ones too) and :func:`operation_span` / :func:`traced` a span around a larger operation.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar, cast

from router.settings import RouterSettings
from router.tracing.attributes import (
    FIRST_CHUNK_S,
    REQUEST_STREAM,
    STREAM_ABANDONED,
    AttributeValue,
    ContentPolicy,
    GenAINames,
    error_attributes,
    operation_of,
    redacted,
    request_attributes,
)
from router.tracing.otel import loaded_trace_api, resolve_tracer
from router.tracing.spans import NO_SPAN, NoSpan, OperationSpan, RouteTrace
from router.types import LLMRequest

__all__ = [
    "FIRST_CHUNK_S",
    "NO_SPAN",
    "STREAM_ABANDONED",
    "NoSpan",
    "OperationSpan",
    "RouteTrace",
    "Tracing",
    "attached_context",
    "force_flush",
    "inject_context",
    "operation_span",
    "record_retry",
    "traced",
]

P = ParamSpec("P")
T = TypeVar("T")

RETRY_EVENT = "grounding_router.retry"


class Tracing:
    """The spans of one router (or batch): ``tracer_provider``, else the global one, else off."""

    def __init__(self, settings: RouterSettings, tracer_provider: Any | None = None) -> None:
        self.tracer_provider = tracer_provider
        self.content = ContentPolicy(
            record=settings.trace_content,
            max_items=settings.trace_content_max_items,
            max_chars=settings.trace_content_max_chars,
        )

    def route(
        self, request: LLMRequest, row: GenAINames, *, stream: bool = False
    ) -> RouteTrace | NoSpan:
        """The span of one routed call of ``request``, to use as ``with ... as span``.

        ``row`` is the vendor's registry row (its GenAI operation and provider names).

        A streamed call's span (``stream``) is used without ``with``: made current by
        ``span.active()`` around each step of the stream, and ended by ``span.end()``.
        """
        resolved = resolve_tracer(self.tracer_provider)
        if resolved is None:
            return NO_SPAN
        api, tracer = resolved
        operation, _ = operation_of(row)
        attributes = request_attributes(request, row)
        if stream:
            attributes[REQUEST_STREAM] = True
        span = tracer.start_span(
            f"{operation} {request.model}",
            kind=api.SpanKind.CLIENT,
            attributes=redacted(attributes),
        )
        return RouteTrace(api, span, self.content)

    def operation(
        self, name: str, attributes: Mapping[str, AttributeValue] | None = None
    ) -> OperationSpan | NoSpan:
        """A span around a larger operation; the calls made inside are its children."""
        return operation_span(name, attributes, tracer_provider=self.tracer_provider)


def operation_span(
    name: str,
    attributes: Mapping[str, AttributeValue] | None = None,
    *,
    tracer_provider: Any | None = None,
) -> OperationSpan | NoSpan:
    """An INTERNAL span named ``name``, current inside its ``with`` block (off: ``NO_SPAN``)."""
    resolved = resolve_tracer(tracer_provider)
    if resolved is None:
        return NO_SPAN
    api, tracer = resolved
    span = tracer.start_span(name, kind=api.SpanKind.INTERNAL, attributes=redacted(attributes))
    return OperationSpan(api, span)


def traced(
    name: str,
    attributes: Mapping[str, AttributeValue] | None = None,
    *,
    tracer_provider: Any | None = None,
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Decorate a function (sync or async) to run inside an :func:`operation_span`."""

    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        if inspect.iscoroutinefunction(function):
            coroutine = cast(Callable[P, Awaitable[Any]], function)

            @functools.wraps(function)
            async def run_async(*args: P.args, **kwargs: P.kwargs) -> Any:
                with operation_span(name, attributes, tracer_provider=tracer_provider):
                    return await coroutine(*args, **kwargs)

            return cast(Callable[P, T], run_async)

        @functools.wraps(function)
        def run(*args: P.args, **kwargs: P.kwargs) -> T:
            with operation_span(name, attributes, tracer_provider=tracer_provider):
                return function(*args, **kwargs)

        return run

    return decorate


def record_retry(attempt: int, wait_s: float, error: BaseException | None) -> None:
    """Add a retry event to the current span (the routed call's), when one is recording."""
    api = loaded_trace_api()
    if api is None:
        return
    span = api.get_current_span()
    if not span.is_recording():
        return
    attributes: dict[str, AttributeValue] = {
        "grounding_router.attempt": attempt,
        "grounding_router.retry.wait_s": round(wait_s, 3),
    }
    if error is not None:
        attributes.update(error_attributes(error))
    span.add_event(RETRY_EVENT, redacted(attributes))


def inject_context() -> dict[str, str]:
    """The current trace context as text headers (W3C ``traceparent``), for another process."""
    if loaded_trace_api() is None:
        return {}
    from opentelemetry import propagate

    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


@contextmanager
def attached_context(carrier: Mapping[str, str]) -> Iterator[None]:
    """Continue, inside the block, the trace whose context :func:`inject_context` gave."""
    if not carrier or loaded_trace_api() is None:
        yield
        return
    from opentelemetry import context, propagate

    token = context.attach(propagate.extract(dict(carrier)))
    try:
        yield
    finally:
        context.detach(token)


def force_flush(timeout_millis: int = 5_000) -> None:
    """Export the spans the global tracer provider still holds (before a process exits)."""
    api = loaded_trace_api()
    if api is None:
        return
    flush = getattr(api.get_tracer_provider(), "force_flush", None)
    if callable(flush):
        flush(timeout_millis)
