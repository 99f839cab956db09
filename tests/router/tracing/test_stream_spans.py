"""A streamed call is one span too: the final response's attributes, or its failure."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from router import Completed, GroundingRequiredFailedError, UnifiedLLMAdapter
from support.emulated import MODELS, VENDORS, grounded_request


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_stream_is_one_span_with_the_completed_response(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter], vendor: str
) -> None:
    """The span is marked streaming, times the first event, records the final response."""
    router, exporter = traced
    events = []
    for event in router.stream(grounded_request(vendor, "Who built the Parthenon?")):
        # Between events the caller's code runs outside the call's span.
        assert not trace.get_current_span().is_recording()
        events.append(event)
    completed = events[-1]
    assert isinstance(completed, Completed)
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert span.kind == SpanKind.CLIENT
    assert span.name.endswith(MODELS[vendor])
    assert attributes["gen_ai.request.stream"] is True
    assert 0 < attributes["gen_ai.response.time_to_first_chunk"] < 60
    assert attributes["grounding_router.citations.count"] == len(completed.response.citations)
    assert attributes["gen_ai.usage.output_tokens"] == completed.response.usage.output_tokens
    assert span.status.status_code == StatusCode.UNSET


@pytest.mark.parametrize("vendor", VENDORS)
async def test_an_async_stream_retried_before_its_first_event_records_the_retry(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter], vendor: str
) -> None:
    """A 429 before anything was delivered is retried: an event on the stream's span."""
    router, exporter = traced
    request = grounded_request(vendor, "Oldest university? [[emulator:fault=429:0*1]]")
    events = [event async for event in router.astream(request)]
    assert isinstance(events[-1], Completed)
    (span,) = exporter.get_finished_spans()
    assert [event.name for event in span.events] == ["grounding_router.retry"]
    assert (span.attributes or {})["grounding_router.attempts"] == 2


def test_a_stream_failing_required_grounding_ends_its_span_with_the_reason(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter],
) -> None:
    """REQUIRED checked at the end of a stream: the span's status is the error with its reason."""
    router, exporter = traced
    request = grounded_request(
        "openai", "Deepest lake? [[emulator:fault=no_search]]", mode="REQUIRED"
    )
    with pytest.raises(GroundingRequiredFailedError):
        list(router.stream(request))
    (span,) = exporter.get_finished_spans()
    assert (span.status.status_code, span.status.description) == (StatusCode.ERROR, "not_invoked")
    assert (span.attributes or {})["grounding_router.required_failure_reason"] == "not_invoked"


def test_a_stream_left_early_is_ended_and_marked(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter],
) -> None:
    """A caller that stops reading ends the span, marked abandoned, without an outcome."""
    router, exporter = traced
    stream = router.stream(grounded_request("vertex", "Longest bridge?"))
    next(stream)
    stream.close()  # type: ignore[attr-defined]
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert attributes["grounding_router.stream.abandoned"] is True
    assert "grounding_router.citations.count" not in attributes
