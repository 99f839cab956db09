"""Without a configured tracer provider tracing is off: nothing imported, nothing recorded."""

from __future__ import annotations

import subprocess
import sys

import pytest
from opentelemetry.trace import SpanKind

from adapters.registry import PROVIDERS
from router.settings import RouterSettings
from router.tracing import NO_SPAN, Tracing, operation_span, traced
from router.types import LLMRequest
from support.otel import in_memory_provider

REQUEST = LLMRequest.model_validate(
    {"vendor": "openai", "model": "gpt-5", "messages": [{"role": "user", "content": "q"}]}
)
ROW = PROVIDERS[REQUEST.vendor]

UNTRACED_PROCESS = """
import sys
from router.settings import RouterSettings
from router.tracing import NO_SPAN, Tracing, force_flush, inject_context, record_retry
from router.types import LLMRequest
from router.router import UnifiedLLMAdapter
from adapters.registry import provider

settings = RouterSettings(_env_file=None)
UnifiedLLMAdapter(settings)
tracing = Tracing(settings)
request = LLMRequest(vendor="openai", model="gpt-5", messages=[{"role": "user", "content": "q"}])
assert tracing.route(request, provider("openai")) is NO_SPAN
assert tracing.operation("grounding_router.batch") is NO_SPAN
record_retry(1, 0.5, None)
force_flush()
assert inject_context() == {}
loaded = [name for name in sys.modules if name.startswith("opentelemetry")]
assert not loaded, loaded
"""


def test_an_application_that_does_not_trace_loads_no_opentelemetry() -> None:
    """With the extra installed but no provider configured, the API is never even imported."""
    finished = subprocess.run(
        [sys.executable, "-c", UNTRACED_PROCESS], capture_output=True, text=True, check=False
    )
    assert finished.returncode == 0, finished.stderr


def test_the_api_without_a_provider_records_nothing() -> None:
    """The API's own proxy provider (imported, never set) counts as no provider."""
    settings = RouterSettings(_env_file=None)  # type: ignore[call-arg]
    assert Tracing(settings).route(REQUEST, ROW) is NO_SPAN


def test_operation_span_and_traced_decorator_for_code_built_on_the_router() -> None:
    """operation_span and @traced give INTERNAL spans; calls inside are their children."""
    provider, exporter = in_memory_provider()

    with operation_span("outer", {"a": 1}, tracer_provider=provider) as outer:
        outer.set({"b": 2})
        settings = RouterSettings(_env_file=None)  # type: ignore[call-arg]
        with Tracing(settings, provider).route(REQUEST, ROW):
            pass
    inner, finished_outer = exporter.get_finished_spans()
    assert finished_outer.kind == SpanKind.INTERNAL
    assert dict(finished_outer.attributes or {}) == {"a": 1, "b": 2}
    assert inner.parent is not None
    assert inner.parent.span_id == finished_outer.context.span_id


async def test_traced_wraps_sync_and_async_functions_in_a_span() -> None:
    """@traced runs a function, sync or async, inside its span; an error marks the span."""
    provider, exporter = in_memory_provider()

    @traced("sync_work", {"kind": "sync"}, tracer_provider=provider)
    def work() -> int:
        return 7

    @traced("async_work", tracer_provider=provider)
    async def awork() -> int:
        raise ValueError("broken")

    assert work() == 7
    with pytest.raises(ValueError, match="broken"):
        await awork()
    sync_span, async_span = exporter.get_finished_spans()
    assert (sync_span.name, dict(sync_span.attributes or {})) == ("sync_work", {"kind": "sync"})
    assert async_span.name == "async_work"
    assert (async_span.attributes or {})["error.type"] == "ValueError"


@pytest.mark.parametrize("attribute", ["grounding_router.batch", "grounding_router.route_many"])
def test_no_span_accepts_every_call(attribute: str) -> None:
    """NO_SPAN takes the same calls as a real span and does nothing."""
    with NO_SPAN as span:
        span.set({attribute: 1})
        span.event(attribute)
        span.failed(ValueError("x"))
