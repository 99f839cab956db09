"""Batch engines as values: each checks its own options when built; the old keywords still work.

The router here runs a scripted in-process adapter; none of these tests starts Ray.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.base import AdapterResult
from router import LLMRequest, RouterSettings, UnifiedLLMAdapter
from router.batch import LocalEngine, RayEngine, arun_batch, run_batch
from router.batch.job import BatchJob
from router.batch.stats import BatchSummary
from support.citations import domain_citation


class GroundedAdapter:
    """Answers every request grounded, citing example.com; counts its calls."""

    vendor = "vertex"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        raise NotImplementedError("the batch runner is async")

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        self.calls += 1
        return AdapterResult(
            content="answer",
            grounded_effective=True,
            tool_call_count=1,
            citations=[domain_citation("example.com")],
        )

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass


def make_router(adapter: GroundedAdapter) -> UnifiedLLMAdapter:
    return UnifiedLLMAdapter(
        RouterSettings(_env_file=None),  # type: ignore[call-arg]
        adapters={"vertex": adapter},  # type: ignore[dict-item]
    )


@pytest.fixture
def source(tmp_path: Path) -> Path:
    request = {
        "vendor": "vertex",
        "model": "gemini-2.5-flash",
        "messages": [{"role": "user", "content": "capital of France"}],
        "grounded": True,
        "grounding_mode": "REQUIRED",
    }
    path = tmp_path / "in.jsonl"
    path.write_text(
        "".join(json.dumps({**request, "request_id": f"r{i}"}) + "\n" for i in range(3))
    )
    return path


def ok_ids(path: Path) -> list[str]:
    return sorted(row["request_id"] for row in map(json.loads, path.read_text().splitlines()))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"workers": 0}, "workers must be at least 1"),
        ({"workers": 2, "router": object()}, "pass settings, not router"),
    ],
)
def test_local_engine_refuses_what_cannot_run(options: dict[str, Any], message: str) -> None:
    """A LocalEngine that could not run is refused when it is built, not when the job starts."""
    with pytest.raises(ValueError, match=message):
        LocalEngine(**options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"actors": (2, 1)}, "1 <= min <= max"),
        ({"actors": (0, 3)}, "1 <= min <= max"),
        ({"address": " "}, "address must name a cluster"),
        ({"checkpoint": ""}, "checkpoint must name a place"),
    ],
)
def test_ray_engine_refuses_what_cannot_run(options: dict[str, Any], message: str) -> None:
    """A RayEngine with a pool or place that cannot be is refused when built, without Ray."""
    with pytest.raises(ValueError, match=message):
        RayEngine(**options)


def test_job_options_are_checked_before_any_engine_runs(source: Path, tmp_path: Path) -> None:
    """A bad concurrency or rate is refused before the Ray engine would try to start a cluster."""
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        run_batch(source, tmp_path / "out", concurrency=0, engine=RayEngine())
    with pytest.raises(ValueError, match="max_rps must be positive"):
        run_batch(source, tmp_path / "out", max_rps=0, engine=RayEngine())
    assert not (tmp_path / "out").exists()


def test_an_injected_router_routes_through_the_local_engine(source: Path, tmp_path: Path) -> None:
    """LocalEngine(router=...) routes every line with that router."""
    adapter = GroundedAdapter()
    summary = run_batch(
        source, tmp_path / "out.jsonl", engine=LocalEngine(router=make_router(adapter))
    )
    assert (summary.done, adapter.calls) == (3, 3)
    assert ok_ids(tmp_path / "out.jsonl") == ["r0", "r1", "r2"]


def test_the_old_router_keyword_warns_and_still_runs(source: Path, tmp_path: Path) -> None:
    """run_batch(..., router=r) works for one more release, with a DeprecationWarning."""
    adapter = GroundedAdapter()
    with pytest.warns(DeprecationWarning, match=r"engine=LocalEngine\(") as caught:
        summary = run_batch(source, tmp_path / "out.jsonl", router=make_router(adapter))
    assert (summary.done, adapter.calls) == (3, 3)
    assert caught[0].filename == __file__  # the warning points at the caller's line


async def test_the_old_keywords_warn_on_arun_batch_too(source: Path, tmp_path: Path) -> None:
    """arun_batch(..., engine="local", router=r) warns at the caller's line and still runs."""
    adapter = GroundedAdapter()
    with pytest.warns(DeprecationWarning, match="deprecated") as caught:
        summary = await arun_batch(
            source, tmp_path / "out.jsonl", engine="local", router=make_router(adapter)
        )
    assert summary.done == 3
    assert caught[0].filename == __file__


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"engine": "ray", "workers": 2}, "engine='ray' builds a router on each actor"),
        ({"engine": "ray", "worker_setup": print}, "engine='ray' builds a router on each actor"),
        ({"actors": (1, 2)}, "apply to engine='ray' only"),
        ({"engine": "local", "ray_address": "auto"}, "apply to engine='ray' only"),
        ({"engine": "spark"}, "unknown engine 'spark'"),
    ],
)
def test_the_old_keywords_keep_their_checks(
    options: dict[str, Any], message: str, source: Path, tmp_path: Path
) -> None:
    """Old keywords that mix the engines are refused as before, after the deprecation warning."""
    with (
        pytest.warns(DeprecationWarning, match="deprecated"),
        pytest.raises(ValueError, match=message),
    ):
        run_batch(source, tmp_path / "out.jsonl", **options)
    assert not (tmp_path / "out.jsonl").exists()


def test_the_old_ray_keywords_build_the_ray_engine(source: Path, tmp_path: Path) -> None:
    """engine="ray" with ray_address, actors and checkpoint becomes the same RayEngine value."""
    seen: list[RayEngine] = []

    async def record(engine: RayEngine, job: BatchJob) -> BatchSummary:
        seen.append(engine)
        return BatchSummary()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RayEngine, "run", record)
        with pytest.warns(DeprecationWarning, match="deprecated"):
            run_batch(
                source,
                tmp_path / "o",
                engine="ray",
                ray_address="auto",
                actors=(1, 2),
                checkpoint="c",
            )
    assert seen == [RayEngine(address="auto", actors=(1, 2), checkpoint="c")]


def test_an_engine_value_and_old_keywords_do_not_mix(source: Path, tmp_path: Path) -> None:
    """Engine options go on the value: an old keyword beside one is a TypeError naming it."""
    with pytest.raises(TypeError, match="workers: give these to the engine value"):
        run_batch(source, tmp_path / "out.jsonl", engine=LocalEngine(), workers=2)
