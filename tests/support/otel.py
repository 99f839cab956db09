"""OpenTelemetry SDK set-ups for the tracing tests: in memory, and a file per worker process.

The in-memory provider is handed to the router (``tracer_provider=``), never made global, so
tests do not share spans. Batch worker processes cannot hand spans back, so their provider,
set by :func:`worker_setup` (a ``run_batch`` ``worker_setup``), writes them as JSON lines to a
file per process under the directory named by ``SPANS_DIR_VARIABLE``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

__all__ = ["SPANS_DIR_VARIABLE", "in_memory_provider", "read_worker_spans", "worker_setup"]

SPANS_DIR_VARIABLE = "TRACING_TEST_SPANS_DIR"


def in_memory_provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A tracer provider that keeps every finished span in memory, exported at once."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


class _JsonLinesExporter(SpanExporter):
    def __init__(self, path: Path) -> None:
        self._path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with self._path.open("a", encoding="utf-8") as handle:
            for span in spans:
                handle.write(json.dumps(_as_dict(span)) + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def _as_dict(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    assert context is not None
    return {
        "name": span.name,
        "trace_id": context.trace_id,
        "span_id": context.span_id,
        "parent_id": span.parent.span_id if span.parent is not None else None,
        "attributes": dict(span.attributes or {}),
    }


def worker_setup() -> None:
    """Make this (worker) process's global tracer provider write its spans to a file."""
    path = Path(os.environ[SPANS_DIR_VARIABLE]) / f"{os.getpid()}.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_JsonLinesExporter(path)))
    trace.set_tracer_provider(provider)


def read_worker_spans(directory: Path) -> list[dict[str, Any]]:
    """Every span the workers wrote under ``directory``."""
    return [
        json.loads(line)
        for path in sorted(directory.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
