"""A call with fallbacks: one parent span, one child span per vendor tried."""

from __future__ import annotations

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from router import UnifiedLLMAdapter
from router.streaming import Completed
from support.emulated import grounded_request

FAILING_FIRST = grounded_request(
    "openai",
    "Who maintains the CPython language reference? [[emulator:fault=no_search@openai]]",
    mode="REQUIRED",
    fallbacks=["anthropic"],
)


def _parent_and_children(exporter: InMemorySpanExporter) -> tuple[ReadableSpan, list[str]]:
    spans = list(exporter.get_finished_spans())
    (parent,) = [span for span in spans if span.name == "grounding_router.fallback"]
    context = parent.get_span_context()
    assert context is not None
    parent_id = context.span_id
    children = [s for s in spans if s.parent is not None and s.parent.span_id == parent_id]
    return parent, [span.name for span in sorted(children, key=lambda s: s.start_time or 0)]


def test_each_vendor_tried_is_a_child_span(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter],
) -> None:
    """The rejected answer and the fallback's answer are two children of the fallback span."""
    router, exporter = traced
    assert router.route(FAILING_FIRST).vendor == "anthropic"
    parent, children = _parent_and_children(exporter)
    assert children == ["chat gpt-5", "chat claude-sonnet-4-6"]
    assert (parent.attributes or {})["grounding_router.fallback.vendors"] == ("openai", "anthropic")
    failed = next(s for s in exporter.get_finished_spans() if s.name == "chat gpt-5")
    assert failed.status.status_code == StatusCode.ERROR


def test_a_streamed_fallback_is_a_child_span_too(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter],
) -> None:
    """A stream that fails before its first event and falls back has both calls as children."""
    router, exporter = traced
    request = {
        **FAILING_FIRST,
        "grounding_mode": "AUTO",
        "messages": [{"role": "user", "content": "What is PEP 8? [[emulator:fault=500@openai]]"}],
    }
    events: list[object] = list(router.stream(request))
    assert isinstance(events[-1], Completed)
    assert events[-1].response.vendor == "anthropic"
    _, children = _parent_and_children(exporter)
    assert children == ["chat gpt-5", "chat claude-sonnet-4-6"]
