"""Batch lines that ask several providers: read and checked for every vendor, one item each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router import RouterSettings, UnifiedLLMAdapter
from router.batch.fanout_lines import FanoutRequest, decode_request, encode_request, request_row
from router.batch.input import BatchInput, BatchItem
from router.batch.limits import RateLimits, limited
from router.batch.output import error_row, row_text
from router.emulated import emulated_settings
from router.emulator import Emulator
from support.hostile_lines import fanout_request

DATA = Path(__file__).resolve().parents[2] / "data"
LINES: list[dict[str, Any]] = json.loads((DATA / "batch_fanout_lines.json").read_text())


def read(path: Path, *lines: dict[str, Any]) -> list[BatchItem]:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return list(BatchInput(path))


@pytest.mark.parametrize("row", LINES, ids=[row["why"] for row in LINES])
def test_a_fanout_line_is_one_item(row: dict[str, Any], tmp_path: Path) -> None:
    """A fan-out line is a request for its vendors, or one error naming the field and problem."""
    line = {"request_id": "q1", "messages": [{"role": "user", "content": "Who won?"}]}
    (item,) = read(tmp_path / "in.jsonl", {**line, **row["extra"]})
    assert item.request_id == "q1"
    if "problem" in row:
        assert item.request is None
        assert item.error is not None
        assert item.error.message.startswith("line 1: "), item.error.message
        assert row["problem"] in item.error.message
        assert item.error.field == row["field"]
        row_json = row_text(error_row(item.line, item.request_id, item.error))
        assert json.loads(row_json)["ok"] is False
    else:
        assert isinstance(item.request, FanoutRequest)
        assert list(item.request.vendors) == row["vendors"]
        assert item.request.request_id == "q1"


def test_a_fanout_line_without_an_id_gets_the_derived_one(tmp_path: Path) -> None:
    """As for a line of one provider: the id derived from the line, carried by the request."""
    (item,) = read(tmp_path / "in.jsonl", fanout_request(1))
    assert item.request_id.startswith("line1-")
    assert isinstance(item.request, FanoutRequest)
    assert item.request.fields["request_id"] == item.request_id


def test_a_fanout_line_crosses_to_workers_unchanged(tmp_path: Path) -> None:
    """Encoded for a worker process and decoded there, the fan-out is the one read."""
    line = fanout_request(1, request_id="q", models={"OpenAI": "gpt-5-mini"}, require="all")
    (item,) = read(tmp_path / "in.jsonl", line)
    assert item.request is not None
    text, fanout = encode_request(item.request)
    assert fanout
    assert decode_request(text, fanout) == item.request


def test_a_request_one_vendor_cannot_serialise_is_one_error(tmp_path: Path) -> None:
    """Nested past what pydantic serialises: refused at the line, as for one provider."""
    deep: object = {"type": "string"}
    for _ in range(300):
        deep = {"type": "array", "items": deep}
    schema = {"type": "object", "properties": {"x": deep}}
    (item,) = read(tmp_path / "in.jsonl", fanout_request(1, request_id="d", json_schema=schema))
    assert item.error is not None
    assert "cannot be serialised" in item.error.message


async def test_a_fanout_takes_one_turn_of_each_vendor_it_asks(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Rate-limited, a line asking openai and vertex takes one turn of each vendor's limit."""
    (item,) = read(tmp_path / "in.jsonl", fanout_request(1, request_id="f"))
    assert isinstance(item.request, FanoutRequest)
    limits = RateLimits(1000)
    async with UnifiedLLMAdapter(emulated_settings(emulator)) as router:
        _, facts = await request_row(limited(router, limits), item.line, item.request)
    assert facts.outcome == "ok"
    assert sorted(key.split(":")[0] for key in limits.granted.elements()) == ["openai", "vertex"]


def test_no_rate_limit_leaves_the_router_as_it_is() -> None:
    """Without max_rps the router is not wrapped: nothing waits and nothing is counted."""
    limits = RateLimits(None)
    router = UnifiedLLMAdapter(RouterSettings(_env_file=None))  # type: ignore[call-arg]
    assert limited(router, limits) is router
    assert limits.granted == {}
