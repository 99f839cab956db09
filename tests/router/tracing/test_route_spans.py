"""One span per routed call: GenAI attributes, grounding evidence, retries, failures, content.

The router gets an SDK tracer provider with an in-memory exporter; the calls go through the real
SDK clients to the loopback emulator.
"""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from adapters.registry import PROVIDERS
from router import GroundingRequiredFailedError, LLMResponse, UnifiedLLMAdapter
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.emulated import MODELS, VENDORS, grounded_request
from support.otel import in_memory_provider

PROVIDER_NAMES = {
    "openai": ("chat", "openai"),
    "vertex": ("generate_content", "gcp.vertex_ai"),
    "gemini": ("generate_content", "gcp.gemini"),
    "perplexity": ("chat", "perplexity"),
    "openrouter": ("chat", "openrouter"),
    "anthropic": ("chat", "anthropic"),
}


def only_span(exporter: InMemorySpanExporter) -> ReadableSpan:
    (span,) = exporter.get_finished_spans()
    return span


def every_text(span: ReadableSpan) -> list[str]:
    """Every string the span records: name, attribute values, events and their attributes."""
    texts = [span.name, span.status.description or ""]
    values: list[Any] = list((span.attributes or {}).values())
    for event in span.events:
        texts.append(event.name)
        values.extend((event.attributes or {}).values())
    for value in values:
        texts.extend(str(part) for part in (value if isinstance(value, tuple) else (value,)))
    return texts


# The span's cost attributes need the model's price: vendors with a price table.
@pytest.mark.parametrize(
    "vendor", [vendor for vendor in VENDORS if PROVIDERS[vendor].price_file() is not None]
)
def test_a_grounded_route_is_one_client_span_with_its_attributes(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter], vendor: str
) -> None:
    """The span names the operation and model and records usage, grounding, attempts, cost."""
    router, exporter = traced
    response = router.route(grounded_request(vendor, "Who won the 2022 World Cup?"))
    span = only_span(exporter)
    operation, provider_name = PROVIDER_NAMES[vendor]
    attributes = dict(span.attributes or {})
    assert span.name == f"{operation} {MODELS[vendor]}"
    assert span.kind == SpanKind.CLIENT
    assert span.status.status_code == StatusCode.UNSET
    usage, cost = response.usage, response.usage.cost
    assert cost is not None
    expected = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": provider_name,
        "gen_ai.request.model": MODELS[vendor],
        "gen_ai.output.type": "text",
        "gen_ai.response.id": response.metadata["response_id"],
        "gen_ai.usage.input_tokens": usage.input_tokens,
        "gen_ai.usage.output_tokens": usage.output_tokens,
        "grounding_router.vendor": vendor,
        "grounding_router.grounded": True,
        "grounding_router.grounding_mode": "AUTO",
        "grounding_router.grounded_effective": True,
        "grounding_router.citations.count": len(response.citations),
        "grounding_router.web_search_queries.count": len(response.web_search_queries),
        "grounding_router.tool_call_count": response.tool_call_count,
        "grounding_router.attempts": 1,
        "grounding_router.two_step": False,
        "grounding_router.cost": cost.total,
        "grounding_router.cost.searches": cost.searches,
        "grounding_router.cost.currency": "USD",
    }
    assert {name: attributes.get(name) for name in expected} == expected
    assert attributes["gen_ai.response.id"]
    assert response.citations
    assert not span.events


def test_a_required_failure_sets_the_error_status_with_its_reason(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter],
) -> None:
    """REQUIRED grounding that did not search: error status 'not_invoked', error.type set."""
    router, exporter = traced
    request = grounded_request(
        "vertex", "Capital of Peru? [[emulator:fault=no_search]]", mode="REQUIRED"
    )
    with pytest.raises(GroundingRequiredFailedError):
        router.route(request)
    span = only_span(exporter)
    attributes = dict(span.attributes or {})
    assert (span.status.status_code, span.status.description) == (StatusCode.ERROR, "not_invoked")
    assert attributes["error.type"] == "GroundingRequiredFailedError"
    assert attributes["grounding_router.required_failure_reason"] == "not_invoked"
    assert attributes["grounding_router.grounded_effective"] is False
    assert attributes["grounding_router.grounding_mode"] == "REQUIRED"
    assert "grounding_router.cost" in attributes  # the rejected answer was paid for


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_retried_call_records_each_retry_as_an_event(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter], vendor: str
) -> None:
    """A 429 then an answer: one span, a retry event for the 429, two attempts."""
    router, exporter = traced
    response = await router.aroute(
        grounded_request(vendor, "Tallest tower in Paris? [[emulator:fault=429:0*1]]")
    )
    span = only_span(exporter)
    (event,) = span.events
    assert response.attempts == 2
    assert (span.attributes or {})["grounding_router.attempts"] == 2
    assert event.name == "grounding_router.retry"
    assert dict(event.attributes or {}) == {
        "grounding_router.attempt": 1,
        "grounding_router.retry.wait_s": 0.0,
        "error.type": "ProviderTransientError",
        "grounding_router.error.reason": "rate_limited",
        "http.response.status_code": 429,
    }
    assert span.status.status_code == StatusCode.UNSET


def test_a_failed_call_sets_the_error_status(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter],
) -> None:
    """A provider error after the retries: error.type, the HTTP status and the reason."""
    router, exporter = traced
    with pytest.raises(Exception, match="500"):
        router.route(grounded_request("openai", "Rivers of Spain? [[emulator:fault=500]]"))
    span = only_span(exporter)
    attributes = dict(span.attributes or {})
    assert span.status.status_code == StatusCode.ERROR
    assert attributes["error.type"] == "ProviderTransientError"
    assert attributes["http.response.status_code"] == 500
    assert len(span.events) == 2  # three attempts, two retries


@pytest.mark.parametrize("vendor", VENDORS)
def test_nothing_about_urls_queries_or_domains_is_recorded_by_default(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter], vendor: str
) -> None:
    """Without trace_content no cited URL, domain or search query appears anywhere in the span."""
    router, exporter = traced
    response = router.route(grounded_request(vendor, "Largest lake in Africa?"))
    assert response.citations  # queries too where the vendor reports them (not all do)
    texts = every_text(only_span(exporter))
    secrets = [*response.web_search_queries]
    for citation in response.citations:
        secrets += [citation["source_domain"], citation["url"] or ""]
    assert not any("http" in text or "://" in text for text in texts)
    assert not [s for s in secrets if s and any(s in text for text in texts)]


def test_content_is_recorded_only_when_asked_and_capped(emulator: Emulator) -> None:
    """trace_content records queries, URLs and domains: at most N items of at most M chars."""
    provider, exporter = in_memory_provider()
    settings = emulated_settings(
        emulator, trace_content=True, trace_content_max_items=2, trace_content_max_chars=20
    )
    with UnifiedLLMAdapter(settings, tracer_provider=provider) as router:
        response = router.route(grounded_request("openai", "Longest river in Asia?"))
    attributes = dict(only_span(exporter).attributes or {})
    assert len(response.citations) > 2
    for name in (
        "grounding_router.web_search_queries",
        "grounding_router.citations.urls",
        "grounding_router.citations.domains",
    ):
        values = attributes[name]
        assert isinstance(values, tuple)
        assert 1 <= len(values) <= 2
        assert all(0 < len(value) <= 20 for value in values)
    first_url = response.citations[0]["url"] or ""
    assert attributes["grounding_router.citations.urls"][0] == first_url[:20]


def test_json_mode_on_vertex_records_the_two_steps(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter],
) -> None:
    """Grounded JSON on Vertex is one span over both calls, marked two_step, output json."""
    router, exporter = traced
    router.route(grounded_request("vertex", "Year the Eiffel Tower opened?", json_mode=True))
    attributes = dict(only_span(exporter).attributes or {})
    assert attributes["grounding_router.two_step"] is True
    assert attributes["gen_ai.output.type"] == "json"


def test_spans_opened_inside_the_call_nest_under_the_route_span(
    traced: tuple[UnifiedLLMAdapter, InMemorySpanExporter], emulator: Emulator
) -> None:
    """A span the SDK call opens (as an SDK instrumentation would) is the route span's child."""
    router, exporter = traced
    provider: TracerProvider = router.tracing.tracer_provider
    adapter = router.adapter_for("openai")
    original = adapter.complete

    def instrumented(request: Any, settings: Any) -> Any:
        with provider.get_tracer("an.sdk.instrumentation").start_as_current_span("chat gpt-5"):
            return original(request, settings)

    adapter.complete = instrumented  # type: ignore[method-assign]
    try:
        router.route(grounded_request("openai", "Highest waterfall?"))
    finally:
        del adapter.complete
    inner, outer = exporter.get_finished_spans()
    assert inner.parent is not None
    assert inner.parent.span_id == outer.get_span_context().span_id
    assert inner.context.trace_id == outer.context.trace_id


def test_a_reask_is_an_event_of_the_one_span(emulator: Emulator) -> None:
    """With re-asking on, the first REQUIRED failure is an event; the span covers both calls."""
    provider, exporter = in_memory_provider()
    settings = emulated_settings(emulator, reask_on_required_failure=True)
    with UnifiedLLMAdapter(settings, tracer_provider=provider) as router:
        response = router.route(
            grounded_request(
                "openai", "Capital of Chile? [[emulator:fault=no_search*1]]", mode="REQUIRED"
            )
        )
    span = only_span(exporter)
    assert isinstance(response, LLMResponse)
    assert [event.name for event in span.events] == ["grounding_router.reask"]
    assert (span.attributes or {})["grounding_router.attempts"] == 2
    assert span.status.status_code == StatusCode.UNSET
