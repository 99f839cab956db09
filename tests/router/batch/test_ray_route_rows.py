"""The routing stage of the Ray engine, called as Ray calls it, without a cluster.

``RouteRows`` is a plain async callable class: these tests give it Arrow batches directly, with
the real SDK clients against the emulator, and check that it answers every row, commits it to a
shard with its id, and never raises.
"""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pytest

from router.batch.fanout_lines import fanout_request
from router.batch.output import error_row, line_bytes, row_text
from router.batch.ray_engine.blocks import (
    INPUT_SCHEMA,
    encode_facts,
    encode_id,
    encode_request,
    read_stats,
)
from router.batch.ray_engine.commits import committed
from router.batch.ray_engine.coordination import JobProgress
from router.batch.ray_engine.layout import Layout, make_places, plan_layout
from router.batch.ray_engine.route_rows import RouteRows
from router.batch.stats import row_facts
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.errors import RequestValidationError
from router.types import LLMRequest


def request(request_id: str, question: str) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "request_id": request_id,
            "vendor": "vertex",
            "model": "gemini-2.5-flash",
            "messages": [{"role": "user", "content": question}],
            "grounded": True,
            "grounding_mode": "REQUIRED",
        }
    )


def to_route(request_id: str, line: int, question: str) -> dict[str, Any]:
    encoded, fanout = encode_request(request(request_id, question))
    return {"request_id": encode_id(request_id), "line": line, "request": encoded, "fanout": fanout}


def fanout_to_route(request_id: str, line: int, question: str) -> dict[str, Any]:
    """A line asking openai and vertex at once, as the reader encodes it."""
    item = fanout_request(
        {
            "request_id": request_id,
            "vendors": ["openai", "vertex"],
            "messages": [{"role": "user", "content": question}],
            "grounded": True,
            "grounding_mode": "REQUIRED",
        }
    )
    encoded, fanout = encode_request(item)
    return {"request_id": encode_id(request_id), "line": line, "request": encoded, "fanout": fanout}


def finished_on_reading(request_id: str, line: int) -> dict[str, Any]:
    error = RequestValidationError(f"line {line}: not valid JSON", request_id=request_id)
    return {
        "request_id": encode_id(request_id),
        "line": line,
        "row": line_bytes(row_text(error_row(line, request_id, error))),
        "facts": encode_facts(row_facts(error=error)),
    }


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    places = plan_layout(str(tmp_path / "out"))
    make_places(places)
    return places


def route_rows(emulator: Emulator, layout: Layout) -> RouteRows:
    settings = emulated_settings(emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0)
    return RouteRows(settings, layout, concurrency=4, commit_s=60.0)


def shard_rows(layout: Layout) -> list[dict[str, Any]]:
    """Every committed row, in input line order."""
    lines = b"".join(path.read_bytes() for path in Path(layout.shards).iterdir())
    return sorted((json.loads(line) for line in lines.splitlines()), key=lambda r: r["line"])


def outcomes_by_id(layout: Layout) -> dict[bytes, str]:
    table = committed(layout, columns=("request_id", "facts"))
    return {
        request_id: pickle.loads(facts)[0]
        for request_id, facts in zip(
            table["request_id"].to_pylist(), table["facts"].to_pylist(), strict=True
        )
    }


async def routed(emulator: Emulator, layout: Layout, rows: list[dict[str, Any]]) -> pa.Table:
    """``rows`` routed by a fresh stage, as one actor routes one block; what it returns."""
    stage = route_rows(emulator, layout)
    try:
        return await stage(pa.Table.from_pylist(rows, schema=INPUT_SCHEMA))
    finally:
        await stage.aclose()


async def test_every_row_is_committed_once(emulator: Emulator, layout: Layout) -> None:
    """Answers, REQUIRED failures, provider errors and bad lines: one row each, none raised."""
    out = await routed(
        emulator,
        layout,
        [
            to_route("ok", 1, "Where is the Rhine?"),
            to_route("skipped", 2, "Where is the Elbe? [[emulator:fault=no_search]]"),
            to_route("broken", 3, "Where is the Oder? [[emulator:fault=500]]"),
            finished_on_reading("bad", 4),
        ],
    )
    rows = shard_rows(layout)
    assert [r["request_id"] for r in rows] == ["ok", "skipped", "broken", "bad"]
    assert [r["ok"] for r in rows] == [True, False, False, False]
    assert [r["error"]["type"] for r in rows[1:]] == [
        "GroundingRequiredFailedError",
        "ProviderTransientError",
        "RequestValidationError",
    ]
    assert outcomes_by_id(layout) == {
        b"ok": "ok",
        b"skipped": "required_failed",
        b"broken": "provider_error",
        b"bad": "bad_input",
    }
    (counted,) = read_stats(out)
    assert dict(counted.outcomes) == {
        "ok": 1,
        "required_failed": 1,
        "provider_error": 1,
        "bad_input": 1,
    }


async def test_a_fanout_line_is_one_row_with_every_providers_outcome(
    emulator: Emulator, layout: Layout
) -> None:
    """A line asking several vendors comes back as one fan-out row, as the local engine's."""
    await routed(
        emulator,
        layout,
        [fanout_to_route("both", 1, "Where is the Rhine? [[emulator:fault=500@vertex]]")],
    )
    (row,) = shard_rows(layout)
    providers = row["fanout"]["providers"]
    assert (row["ok"], providers["openai"]["ok"], providers["vertex"]["ok"]) == (True, True, False)
    assert providers["vertex"]["error"]["type"] == "ProviderTransientError"


async def test_an_undecodable_request_costs_its_row_only(
    emulator: Emulator, layout: Layout
) -> None:
    """A request the actor cannot read becomes an unexpected_error row; the batch goes on."""
    await routed(
        emulator,
        layout,
        [
            {"request_id": b"garbled", "line": 1, "request": b"{not json"},
            to_route("fine", 2, "Where is the Main?"),
        ],
    )
    garbled, fine = shard_rows(layout)
    assert garbled["error"]["reason"] == "unexpected_error"
    assert fine["ok"] is True


async def test_one_router_serves_every_batch(emulator: Emulator, layout: Layout) -> None:
    """The actor's router (and its SDK clients) is made once and kept."""
    stage = route_rows(emulator, layout)
    batch = pa.Table.from_pylist([to_route("r1", 1, "Where is the Weser?")], schema=INPUT_SCHEMA)
    other = pa.Table.from_pylist([to_route("r2", 2, "Where is the Ems?")], schema=INPUT_SCHEMA)
    try:
        await stage(batch)
        first = stage._router
        await stage(other)
    finally:
        await stage.aclose()
    assert first is not None
    assert stage._router is first


async def test_a_retried_block_routes_only_what_was_not_committed(
    emulator: Emulator, layout: Layout
) -> None:
    """The same block again (Ray's retry after its actor died) calls no provider for rows its
    first attempt committed, and counts them as that attempt did."""
    batch = pa.Table.from_pylist(
        [to_route("r1", 1, "Where is the Weser?"), to_route("r2", 2, "Where is the Ems?")],
        schema=INPUT_SCHEMA,
    )
    stage = route_rows(emulator, layout)
    try:
        await stage(batch)
        emulator.clear_requests()
        (again,) = read_stats(await stage(batch))
    finally:
        await stage.aclose()
    assert emulator.requests == []
    assert dict(again.outcomes) == {"ok": 2}
    assert len(shard_rows(layout)) == 2


PROJECT = re.compile(r"/projects/([^/]+)/")


class InProcessHandle:
    """A Ray actor handle's calling convention (``handle.method.remote(...)``, awaited) over a
    plain instance of the actor's class, as the stage calls its progress actor."""

    def __init__(self, actor: object) -> None:
        self._actor = actor

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._actor, name)

        async def remote(*args: Any) -> Any:
            return method(*args)

        return SimpleNamespace(remote=remote)


async def test_each_actor_routes_with_its_own_pool_entry(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Three actors numbered by the job's progress actor take entries 0, 1, 0 of a 2-project
    Vertex pool: each block's calls go to its actor's project."""
    settings = emulated_settings(
        emulator,
        retry_initial_delay_s=0.0,
        retry_max_delay_s=0.0,
        credential_pools={
            "vertex": [{"google_cloud_project": "pool-p1"}, {"google_cloud_project": "pool-p2"}]
        },
    )
    progress = InProcessHandle(JobProgress())
    projects = []
    for number in range(3):
        places = plan_layout(str(tmp_path / f"out{number}"))
        make_places(places)
        stage = RouteRows(settings, places, concurrency=2, commit_s=60.0, shares=progress)
        batch = [to_route(f"a{number}-{n}", n, f"Where is river {number}-{n}?") for n in range(2)]
        emulator.clear_requests()
        try:
            await stage(pa.Table.from_pylist(batch, schema=INPUT_SCHEMA))
        finally:
            await stage.aclose()
        projects.append({PROJECT.findall(request.path)[0] for request in emulator.requests})
    assert projects == [{"pool-p1"}, {"pool-p2"}, {"pool-p1"}]
