"""A router whose spans go to an in-memory exporter, against the module's emulator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from router import UnifiedLLMAdapter
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.otel import in_memory_provider


@pytest.fixture
def traced(emulator: Emulator) -> Iterator[tuple[UnifiedLLMAdapter, InMemorySpanExporter]]:
    """(a router that retries at once, the exporter that holds its finished spans)."""
    provider, exporter = in_memory_provider()
    settings = emulated_settings(emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0)
    with UnifiedLLMAdapter(settings, tracer_provider=provider) as router:
        yield router, exporter
