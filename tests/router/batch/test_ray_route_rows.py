"""The routing stage of the Ray engine, called as Ray calls it, without a cluster.

``RouteRows`` is a plain async callable class: these tests give it Arrow batches directly, with
the real SDK clients against the emulator, and check that it answers every row and never raises.
"""

from __future__ import annotations

import json
import pickle
from typing import Any

import pyarrow as pa

from router.batch.fanout_lines import fanout_request
from router.batch.output import error_row, line_bytes, row_text
from router.batch.ray_engine.blocks import INPUT_SCHEMA, encode_facts, encode_id, encode_request
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


def route_rows(emulator: Emulator) -> RouteRows:
    settings = emulated_settings(emulator, retry_initial_delay_s=0.0, retry_max_delay_s=0.0)
    return RouteRows(settings, concurrency=4)


async def routed(emulator: Emulator, rows: list[dict[str, Any]]) -> pa.Table:
    """``rows`` routed by a fresh stage, as one actor routes one block."""
    stage = route_rows(emulator)
    try:
        return await stage(pa.Table.from_pylist(rows, schema=INPUT_SCHEMA))
    finally:
        await stage.aclose()


async def test_every_row_comes_back_once_in_order(emulator: Emulator) -> None:
    """Answers, REQUIRED failures, provider errors and bad lines: one row each, none raised."""
    out = await routed(
        emulator,
        [
            to_route("ok", 1, "Where is the Rhine?"),
            to_route("skipped", 2, "Where is the Elbe? [[emulator:fault=no_search]]"),
            to_route("broken", 3, "Where is the Oder? [[emulator:fault=500]]"),
            finished_on_reading("bad", 4),
        ],
    )
    rows = [json.loads(line) for line in out.column("row").to_pylist()]
    assert out.column("request_id").to_pylist() == [b"ok", b"skipped", b"broken", b"bad"]
    assert [r["ok"] for r in rows] == [True, False, False, False]
    assert [r["error"]["type"] for r in rows[1:]] == [
        "GroundingRequiredFailedError",
        "ProviderTransientError",
        "RequestValidationError",
    ]
    outcomes = [pickle.loads(facts)[0] for facts in out.column("facts").to_pylist()]
    assert outcomes == ["ok", "required_failed", "provider_error", "bad_input"]


async def test_a_fanout_line_is_one_row_with_every_providers_outcome(emulator: Emulator) -> None:
    """A line asking several vendors comes back as one fan-out row, as the local engine's."""
    out = await routed(
        emulator, [fanout_to_route("both", 1, "Where is the Rhine? [[emulator:fault=500@vertex]]")]
    )
    (row,) = (json.loads(line) for line in out.column("row").to_pylist())
    providers = row["fanout"]["providers"]
    assert (row["ok"], providers["openai"]["ok"], providers["vertex"]["ok"]) == (True, True, False)
    assert providers["vertex"]["error"]["type"] == "ProviderTransientError"


async def test_an_undecodable_request_costs_its_row_only(emulator: Emulator) -> None:
    """A request the actor cannot read becomes an unexpected_error row; the batch goes on."""
    out = await routed(
        emulator,
        [
            {"request_id": b"garbled", "line": 1, "request": b"{not json"},
            to_route("fine", 2, "Where is the Main?"),
        ],
    )
    garbled, fine = (json.loads(line) for line in out.column("row").to_pylist())
    assert garbled["error"]["reason"] == "unexpected_error"
    assert fine["ok"] is True


async def test_one_router_serves_every_batch(emulator: Emulator) -> None:
    """The actor's router (and its SDK clients) is made once and kept."""
    stage = route_rows(emulator)
    batch = pa.Table.from_pylist([to_route("r1", 1, "Where is the Weser?")], schema=INPUT_SCHEMA)
    try:
        await stage(batch)
        first = stage._router
        await stage(batch)
    finally:
        await stage.aclose()
    assert first is not None
    assert stage._router is first
