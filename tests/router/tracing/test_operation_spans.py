"""Parent spans over many calls: a fan-out, a batch in one process and across worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from router import UnifiedLLMAdapter, aroute_many, route_many
from router.batch import LocalEngine, run_batch
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.emulated import MODELS, grounded_request
from support.otel import SPANS_DIR_VARIABLE, in_memory_provider, read_worker_spans, worker_setup


def children_of(parent: ReadableSpan, spans: list[ReadableSpan]) -> list[ReadableSpan]:
    parent_id = parent.get_span_context().span_id
    return [span for span in spans if span.parent is not None and span.parent.span_id == parent_id]


def write_requests(path: Path, count: int) -> Path:
    with path.open("w") as handle:
        for number in range(count):
            vendor = ("openai", "vertex")[number % 2]
            request = grounded_request(vendor, f"Which river runs through city {number}?")
            handle.write(json.dumps({"request_id": f"r{number:03d}", **request}) + "\n")
    return path


@pytest.mark.parametrize("asynchronous", [False, True], ids=["route_many", "aroute_many"])
async def test_a_fanout_is_a_parent_span_over_one_child_per_provider(
    emulator: Emulator, asynchronous: bool
) -> None:
    """route_many makes one span whose children are each provider's call span."""
    provider, exporter = in_memory_provider()
    question = {"messages": [{"role": "user", "content": "Who painted the Mona Lisa?"}]}
    with UnifiedLLMAdapter(emulated_settings(emulator), tracer_provider=provider) as router:
        if asynchronous:
            await aroute_many({**question, "grounded": True}, ["openai", "vertex"], router=router)
        else:
            route_many({**question, "grounded": True}, ["openai", "vertex"], router=router)
    spans = list(exporter.get_finished_spans())
    (fanout,) = [span for span in spans if span.name == "grounding_router.route_many"]
    children = children_of(fanout, spans)
    assert fanout.kind == SpanKind.INTERNAL
    assert sorted(span.name for span in children) == sorted(
        ["chat gpt-5", "generate_content gemini-2.5-flash"]
    )
    assert {span.context.trace_id for span in spans} == {fanout.context.trace_id}
    assert (fanout.attributes or {})["grounding_router.answered"] == ("openai", "vertex")


def test_a_fanout_that_fails_marks_its_span(emulator: Emulator) -> None:
    """When every provider fails, the fan-out span has the error status."""
    provider, exporter = in_memory_provider()
    request = {"messages": [{"role": "user", "content": "Why? [[emulator:fault=400]]"}]}
    with (
        UnifiedLLMAdapter(emulated_settings(emulator), tracer_provider=provider) as router,
        pytest.raises(Exception, match="route_many needed"),
    ):
        route_many(request, ["openai", "vertex"], router=router)
    (fanout,) = [s for s in exporter.get_finished_spans() if s.name.endswith("route_many")]
    assert fanout.status.status_code == StatusCode.ERROR
    assert (fanout.attributes or {})["error.type"] == "FanoutError"


def test_a_batch_of_50_is_one_parent_span_over_50_call_spans(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Every routed call of a batch run is a child of the run's span, in one trace."""
    provider, exporter = in_memory_provider()
    source = write_requests(tmp_path / "in.jsonl", 50)
    router = UnifiedLLMAdapter(emulated_settings(emulator), tracer_provider=provider)
    summary = run_batch(
        source, tmp_path / "out.jsonl", concurrency=8, engine=LocalEngine(router=router)
    )
    spans = list(exporter.get_finished_spans())
    (batch,) = [span for span in spans if span.name == "grounding_router.batch"]
    calls = children_of(batch, spans)
    assert summary.done == 50
    assert len(spans) == 51
    assert len(calls) == 50
    assert {span.context.trace_id for span in spans} == {batch.context.trace_id}
    names = {f"chat {MODELS['openai']}", f"generate_content {MODELS['vertex']}"}
    assert {span.name for span in calls} == names
    attributes = dict(batch.attributes or {})
    assert attributes["grounding_router.batch.total"] == 50
    assert attributes["grounding_router.batch.done"] == 50
    assert attributes["grounding_router.batch.outcome.ok"] == 50
    assert attributes["grounding_router.cost"] == pytest.approx(summary.cost.totals[0]["total"])


def test_worker_processes_continue_the_batch_trace(
    emulator: Emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, each worker's span is a child of the batch span and its calls its children."""
    spans_dir = tmp_path / "spans"
    spans_dir.mkdir()
    monkeypatch.setenv(SPANS_DIR_VARIABLE, str(spans_dir))
    provider, exporter = in_memory_provider()
    source = write_requests(tmp_path / "in.jsonl", 20)
    summary = run_batch(
        source,
        tmp_path / "out.jsonl",
        settings=emulated_settings(emulator),
        concurrency=4,
        engine=LocalEngine(workers=2, tracer_provider=provider, worker_setup=worker_setup),
    )
    (batch,) = exporter.get_finished_spans()
    in_workers = read_worker_spans(spans_dir)
    workers = [span for span in in_workers if span["name"] == "grounding_router.batch.worker"]
    calls = [span for span in in_workers if span["name"] != "grounding_router.batch.worker"]
    assert summary.done == 20
    assert batch.name == "grounding_router.batch"
    assert len(workers) == 2
    assert {span["parent_id"] for span in workers} == {batch.context.span_id}
    assert {span["trace_id"] for span in in_workers} == {batch.context.trace_id}
    assert len(calls) == 20
    assert {span["parent_id"] for span in calls} <= {span["span_id"] for span in workers}
    assert sorted(span["attributes"]["grounding_router.batch.worker"] for span in workers) == [0, 1]
