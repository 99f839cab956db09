"""The router's spans: one per routed call, and generic spans for the calls built on it.

:class:`RouteTrace` is the span of one ``route()`` / ``aroute()`` (or streamed) call: started
as the current span, so the provider SDK's own spans (and any instrumentation's) nest under it,
ended once with the response or the error (a stream's span is made current only while the
router's own code runs, :meth:`OperationSpan.active`, never across a ``yield`` to the caller).
:class:`OperationSpan` is a plain span around a
larger operation (``route_many``, a batch): the routed calls made inside it are its children.
When tracing is off both are the shared :data:`NO_SPAN`, whose methods do nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from types import TracebackType
from typing import Any, Self

from router.errors import RouterError
from router.tracing.attributes import (
    AttributeValue,
    ContentPolicy,
    error_attributes,
    kept_response,
    redacted,
    response_attributes,
)
from router.types import LLMResponse

__all__ = ["NO_SPAN", "NoSpan", "OperationSpan", "RouteTrace"]


class NoSpan:
    """Tracing is off: every method does nothing, at the cost of a call."""

    __slots__ = ()

    def __enter__(self) -> NoSpan:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def set(self, _attributes: Mapping[str, AttributeValue]) -> None:
        return None

    def event(self, _name: str, _attributes: Mapping[str, AttributeValue] | None = None) -> None:
        return None

    def succeeded(self, _response: LLMResponse) -> None:
        return None

    def failed(self, _error: BaseException) -> None:
        return None

    def active(self) -> AbstractContextManager[None]:
        return _INACTIVE

    def end(self, _error: BaseException | None = None) -> None:
        return None


_INACTIVE = nullcontext()
NO_SPAN = NoSpan()


class OperationSpan:
    """A span made current for the ``with`` block, ended when it closes.

    An exception leaving the block marks the span as an error with the exception's class (a
    routed call's own span records its error itself; see :class:`RouteTrace`).
    """

    __slots__ = ("_api", "_closed", "_ended", "_span", "_token")

    def __init__(self, api: Any, span: Any) -> None:
        self._api = api
        self._span = span
        self._token: object | None = None
        self._ended = False  # the outcome is recorded
        self._closed = False  # the span is ended

    def __enter__(self) -> Self:
        from opentelemetry import context

        self._token = context.attach(self._api.set_span_in_context(self._span))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        from opentelemetry import context

        if self._token is not None:
            context.detach(self._token)  # type: ignore[arg-type]
        self.end(exc)

    @contextmanager
    def active(self) -> Iterator[None]:
        """The span current for the block only: what a generator does between its yields."""
        from opentelemetry import context

        token = context.attach(self._api.set_span_in_context(self._span))
        try:
            yield
        finally:
            context.detach(token)

    def end(self, error: BaseException | None = None) -> None:
        """End the span once; an ``error`` not yet recorded marks it as failed."""
        if error is not None and not self._ended:
            self.failed(error)
        if not self._closed:
            self._closed = True
            self._span.end()

    def set(self, attributes: Mapping[str, AttributeValue]) -> None:
        """Add attributes to the span."""
        self._span.set_attributes(redacted(attributes))

    def event(self, name: str, attributes: Mapping[str, AttributeValue] | None = None) -> None:
        """Add a span event."""
        self._span.add_event(name, redacted(attributes))

    def succeeded(self, _response: LLMResponse) -> None:
        """Nothing to add: the status of a span that succeeded stays unset, as is usual."""

    def failed(self, error: BaseException) -> None:
        """Mark the span as failed: ``error.type`` and the error status, with the reason."""
        self._ended = True
        self._span.set_attributes(redacted(error_attributes(error)))
        reason = error.reason if isinstance(error, RouterError) else None
        status = self._api.Status(self._api.StatusCode.ERROR, reason or type(error).__name__)
        self._span.set_status(status)


class RouteTrace(OperationSpan):
    """The span of one routed call; its response or error is recorded on it once."""

    __slots__ = ("_content",)

    def __init__(self, api: Any, span: Any, content: ContentPolicy) -> None:
        super().__init__(api, span)
        self._content = content

    def succeeded(self, response: LLMResponse) -> None:
        """Record what the answer showed: usage, grounding evidence, attempts, cost."""
        self._ended = True
        self._span.set_attributes(redacted(response_attributes(response, self._content)))

    def failed(self, error: BaseException) -> None:
        """Record the error; a rejected answer's evidence too (REQUIRED failures keep it)."""
        kept = kept_response(error)
        if kept is not None:
            self._span.set_attributes(redacted(response_attributes(kept, self._content)))
        super().failed(error)
