"""The batch runner: one row per input line, resume without duplicates, clean stops, flat memory.

The router here runs a scripted in-process adapter; tests/test_batch_end_to_end.py runs the same
runner through the emulator with the real SDK clients.
"""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterResult
from router import (
    GroundingRequiredFailedError,
    LLMRequest,
    ProviderRequestError,
    RouterSettings,
    UnifiedLLMAdapter,
)
from router.batch import LocalEngine, arun_batch, run_batch
from router.batch.input import derive_request_id
from router.batch.stats import BatchStats
from support.citations import domain_citation


class PromptDrivenAdapter:
    """Answers according to the prompt: 'fail400', 'nosearch', else a grounded answer."""

    vendor = "vertex"

    def __init__(self) -> None:
        self.calls = 0
        self.release: asyncio.Event | None = None

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        raise NotImplementedError("the batch runner is async")

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        self.calls += 1
        if self.release is not None:
            await self.release.wait()
        prompt = request.messages[-1].content
        if "fail400" in prompt:
            raise ProviderRequestError("bad request", status_code=400, reason="bad_request")
        if "nosearch" in prompt:
            return AdapterResult(content="no search")
        return AdapterResult(
            content=f"answer to {prompt[:20]}",
            grounded_effective=True,
            tool_call_count=1,
            citations=[domain_citation("example.de" if "de" in prompt else "example.com")],
        )

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass


def make_router(adapter: PromptDrivenAdapter) -> UnifiedLLMAdapter:
    return UnifiedLLMAdapter(
        RouterSettings(_env_file=None),  # type: ignore[call-arg]
        adapters={"vertex": adapter},  # type: ignore[dict-item]
    )


def line(prompt: str, request_id: str | None = None, **extra: Any) -> str:
    data: dict[str, Any] = {
        "vendor": "vertex",
        "model": "gemini-2.5-flash",
        "messages": [{"role": "user", "content": prompt}],
        "grounded": True,
        "grounding_mode": "REQUIRED",
        **extra,
    }
    if request_id is not None:
        data["request_id"] = request_id
    return json.dumps(data)


def write_input(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text().splitlines()]


def mixed_input(tmp_path: Path) -> Path:
    return write_input(
        tmp_path / "in.jsonl",
        [
            line("capital of de", "a"),
            line("nosearch please", "b"),
            line("fail400 now", "c"),
            "{not json",
            "",
            line("again", "a"),
            json.dumps({"vendor": "vertex", "model": "m", "messages": [], "request_id": "e"}),
            line("no id given"),
        ],
    )


def test_every_line_gets_exactly_one_row(tmp_path: Path) -> None:
    """Each non-blank line produces one row; ids never repeat; outcomes are typed."""
    out = tmp_path / "out.jsonl"
    summary = run_batch(
        mixed_input(tmp_path), out, engine=LocalEngine(router=make_router(PromptDrivenAdapter()))
    )
    rows = {row["request_id"]: row for row in read_rows(out)}
    assert len(rows) == 7 == summary.done == summary.total
    assert rows["a"]["ok"] is True
    assert rows["a"]["response"]["citations"][0]["source_domain"] == "example.de"
    assert rows["a"]["request"]["grounding_mode"] == "REQUIRED"
    assert rows["b"]["error"]["type"] == "GroundingRequiredFailedError"
    assert rows["b"]["error"]["reason"] == "not_invoked"
    assert rows["c"]["error"] == rows["c"]["error"] | {
        "type": "ProviderRequestError",
        "status_code": 400,
    }
    assert rows["e"]["error"]["message"].startswith("line 7: messages:")
    assert rows["a#line6"]["error"]["reason"] == "duplicate_request_id"
    assert "already used on line 1" in rows["a#line6"]["error"]["message"]
    bad_json = next(r for r in rows.values() if r["line"] == 4)
    assert "line 4: not valid JSON" in bad_json["error"]["message"]
    no_id = next(r for r in rows.values() if r["line"] == 8)
    assert no_id["request_id"].startswith("line8-")
    assert summary.outcomes == {
        "bad_input": 3,
        "ok": 2,
        "provider_error": 1,
        "required_failed": 1,
    }
    assert summary.required_failure_reasons == {"not_invoked": 1}


def test_derived_ids_are_stable() -> None:
    """The same line at the same position always derives the same id."""
    raw = line("question")
    assert derive_request_id(3, raw) == derive_request_id(3, raw + "\n")
    assert derive_request_id(3, raw) != derive_request_id(4, raw)


def test_existing_output_needs_resume_or_overwrite(tmp_path: Path) -> None:
    """A run never silently appends to, or clobbers, earlier results."""
    source = mixed_input(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_text('{"request_id": "x", "ok": true}\n')
    with pytest.raises(FileExistsError, match="resume"):
        run_batch(source, out, engine=LocalEngine(router=make_router(PromptDrivenAdapter())))
    run_batch(
        source, out, overwrite=True, engine=LocalEngine(router=make_router(PromptDrivenAdapter()))
    )
    assert "x" not in {row["request_id"] for row in read_rows(out)}


def test_resume_skips_done_ids_and_cuts_a_partial_line(tmp_path: Path) -> None:
    """A killed run (complete rows plus half a row) resumed ends with every id exactly once."""
    source = write_input(tmp_path / "in.jsonl", [line(f"q{i}", f"id{i}") for i in range(20)])
    out = tmp_path / "out.jsonl"
    run_batch(source, out, engine=LocalEngine(router=make_router(PromptDrivenAdapter())))
    complete = out.read_text().splitlines(keepends=True)
    out.write_text("".join(complete[:8]) + complete[8][:25])  # the kill hit mid-row
    adapter = PromptDrivenAdapter()
    summary = run_batch(source, out, resume=True, engine=LocalEngine(router=make_router(adapter)))
    ids = [row["request_id"] for row in read_rows(out)]
    assert sorted(ids) == sorted(f"id{i}" for i in range(20))
    assert summary.skipped == 8
    assert adapter.calls == 12


async def test_stop_finishes_in_flight_and_resume_completes(tmp_path: Path) -> None:
    """Setting stop writes only whole rows, marks the run interrupted, and resume finishes it."""
    source = write_input(tmp_path / "in.jsonl", [line(f"q{i}", f"id{i}") for i in range(50)])
    out = tmp_path / "out.jsonl"
    stop = asyncio.Event()

    def stop_after_ten(stats: BatchStats) -> None:
        if stats.done >= 10:
            stop.set()

    first = await arun_batch(
        source,
        out,
        concurrency=4,
        stop=stop,
        on_progress=stop_after_ten,
        engine=LocalEngine(router=make_router(PromptDrivenAdapter())),
    )
    assert first.interrupted
    assert 10 <= first.done < 50
    await arun_batch(
        source, out, resume=True, engine=LocalEngine(router=make_router(PromptDrivenAdapter()))
    )
    ids = [row["request_id"] for row in read_rows(out)]
    assert sorted(ids) == sorted(f"id{i}" for i in range(50))


async def test_stop_cancels_work_past_the_grace_period(tmp_path: Path) -> None:
    """Requests still hanging when the grace period ends are cancelled and get no row."""
    source = write_input(tmp_path / "in.jsonl", [line(f"q{i}", f"id{i}") for i in range(5)])
    out = tmp_path / "out.jsonl"
    adapter = PromptDrivenAdapter()
    adapter.release = asyncio.Event()  # never set: every call hangs
    stop = asyncio.Event()
    asyncio.get_running_loop().call_soon(stop.set)
    summary = await arun_batch(
        source,
        out,
        concurrency=2,
        stop=stop,
        grace_s=0.0,
        engine=LocalEngine(router=make_router(adapter)),
    )
    assert summary.interrupted
    assert summary.done == 0
    assert out.read_text() == ""


def test_summary_counts_grounding_and_domains(tmp_path: Path) -> None:
    """The summary reports grounded rate, citations per answer, latency and top domains."""
    source = write_input(
        tmp_path / "in.jsonl",
        [line("about de", "1"), line("about de too", "2"), line("other", "3")],
    )
    summary = run_batch(
        source,
        tmp_path / "out.jsonl",
        engine=LocalEngine(router=make_router(PromptDrivenAdapter())),
    )
    assert summary.grounded_rate == 1.0
    assert summary.citations_per_answer == 1.0
    assert summary.top_domains == [("example.de", 2), ("example.com", 1)]
    assert summary.latency_ms_p50 is not None
    assert summary.latency_ms_p95 is not None
    assert json.loads(json.dumps(summary.to_dict()))["top_domains"][0] == {
        "domain": "example.de",
        "citations": 2,
    }


def test_input_is_streamed_not_read_whole(tmp_path: Path) -> None:
    """Peak memory stays far below the size of a large input file."""
    padding = "x" * 8_000
    source = tmp_path / "in.jsonl"
    with source.open("w") as handle:
        for i in range(3_000):
            handle.write(line(f"q{i} {padding}", f"id{i}") + "\n")
    input_bytes = source.stat().st_size
    tracemalloc.start()
    try:
        run_batch(
            source,
            tmp_path / "out.jsonl",
            engine=LocalEngine(router=make_router(PromptDrivenAdapter())),
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert input_bytes > 20_000_000
    assert peak < input_bytes / 4


def test_invalid_options_are_refused(tmp_path: Path) -> None:
    """Missing input, zero concurrency and a non-positive rate are errors before any work."""
    source = mixed_input(tmp_path)
    router = make_router(PromptDrivenAdapter())
    with pytest.raises(FileNotFoundError, match="input file not found"):
        run_batch(
            tmp_path / "missing.jsonl", tmp_path / "o1.jsonl", engine=LocalEngine(router=router)
        )
    with pytest.raises(ValueError, match="concurrency"):
        run_batch(source, tmp_path / "o2.jsonl", concurrency=0, engine=LocalEngine(router=router))
    with pytest.raises(ValueError, match="max_rps"):
        run_batch(source, tmp_path / "o3.jsonl", max_rps=0, engine=LocalEngine(router=router))


def test_rate_limited_run_still_completes(tmp_path: Path) -> None:
    """With a per-vendor rate limit every request still gets its row."""
    source = write_input(tmp_path / "in.jsonl", [line(f"q{i}", f"id{i}") for i in range(5)])
    summary = run_batch(
        source,
        tmp_path / "out.jsonl",
        max_rps=1000,
        engine=LocalEngine(router=make_router(PromptDrivenAdapter())),
    )
    assert summary.done == 5


def test_required_failure_row_keeps_forensics(tmp_path: Path) -> None:
    """A REQUIRED failure row says whether the model searched and how much it cited."""
    source = write_input(tmp_path / "in.jsonl", [line("nosearch", "n")])
    run_batch(
        source,
        tmp_path / "out.jsonl",
        engine=LocalEngine(router=make_router(PromptDrivenAdapter())),
    )
    (row,) = read_rows(tmp_path / "out.jsonl")
    assert row["error"]["grounded_effective"] is False
    assert row["error"]["citation_count"] == 0
    assert GroundingRequiredFailedError.__name__ == row["error"]["type"]


def test_a_blank_request_id_is_answered_once_however_often_resumed(tmp_path: Path) -> None:
    """A whitespace id is read as no id: resumes find its row instead of adding another."""
    source = write_input(tmp_path / "in.jsonl", [line("blank id", "   "), line("given", "g")])
    out = tmp_path / "out.jsonl"
    adapter = PromptDrivenAdapter()
    run_batch(source, out, engine=LocalEngine(router=make_router(adapter)))
    for _ in range(3):
        run_batch(source, out, resume=True, engine=LocalEngine(router=make_router(adapter)))
    rows = read_rows(out)
    assert len(rows) == 2
    assert rows[0]["request_id"].startswith("line1-")
    assert rows[0]["response"]["request_id"] == rows[0]["request_id"]
    assert adapter.calls == 2


def test_a_real_id_shaped_like_a_renamed_duplicate_keeps_its_own_row(tmp_path: Path) -> None:
    """Lines a, a, 'a#line2': three rows under three ids, each kept once through resumes."""
    source = write_input(
        tmp_path / "in.jsonl", [line("first", "a"), line("again", "a"), line("real", "a#line2")]
    )
    out = tmp_path / "out.jsonl"
    adapter = PromptDrivenAdapter()
    run_batch(source, out, engine=LocalEngine(router=make_router(adapter)))
    kept = [row for row in out.read_text().splitlines(keepends=True) if '"a#line2"' not in row]
    out.write_text("".join(kept))  # as if killed before the real a#line2 was answered
    run_batch(source, out, resume=True, engine=LocalEngine(router=make_router(adapter)))
    rows = {row["request_id"]: row for row in read_rows(out)}
    assert sorted(rows) == ["a", "a#line2", "a#line2.2"]
    assert rows["a#line2"]["ok"] is True
    assert rows["a#line2.2"]["error"]["reason"] == "duplicate_request_id"
    assert adapter.calls == 3
