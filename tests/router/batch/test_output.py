"""Batch rows are always written, whatever text a provider's reply or error carried."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from router.batch import run_batch
from router.batch.output import OutputWriteError, ResultWriter, row_text, success_row
from router.citations import make_citation
from router.emulator import Emulator
from router.types import LLMRequest, LLMResponse
from support.emulated import emulator_settings
from support.file_limits import file_size_limit


def test_row_with_lone_surrogates_is_written_as_json_escapes(tmp_path: Path) -> None:
    """A lone surrogate, which UTF-8 cannot encode, is written as its JSON escape: exact, valid."""
    path = tmp_path / "out.jsonl"
    writer = ResultWriter(path)
    row = {"request_id": "r1", "error": {"message": "bad \ud800 text", "note": "Café 😀"}}
    writer.write(row)
    writer.close()
    line = path.read_bytes()
    assert b"\\ud800" in line
    assert "Café 😀".encode() in line
    assert json.loads(line) == row


def _request() -> LLMRequest:
    return LLMRequest(vendor="openai", model="gpt-5", messages=[{"role": "user", "content": "q"}])


def _answered(metadata: dict[str, object]) -> LLMResponse:
    citation = make_citation(
        provider="openai", url="https://www.bundesregierung.de/breg-de/aktuelles", rank=1
    )
    return LLMResponse(
        vendor="openai",
        model="gpt-5",
        content='Grüße 😀 \u2028 and a quote "',
        latency_ms=1e-7,
        citations=[citation],
        metadata=metadata,
    )


def test_success_row_holds_the_response_as_its_json_dump() -> None:
    """A success row's response reads back as ``model_dump(mode="json")`` gives it."""
    request = _request()
    response = _answered({"score": float("inf"), "big": 10**30, "tags": ("a", "b")})
    row = json.loads(row_text(success_row(4, request, response)))
    assert row["response"] == json.loads(json.dumps(response.model_dump(mode="json")))
    assert (row["ok"], row["line"], row["request"]["vendor"]) == (True, 4, "openai")


def test_success_row_with_a_lone_surrogate_is_written_as_its_escape(tmp_path: Path) -> None:
    """A response carrying a lone surrogate still becomes its row, the surrogate escaped."""
    request = _request()
    response = _answered({"provider_note": "bad \ud800 text"})
    writer = ResultWriter(tmp_path / "out.jsonl")
    writer.write(success_row(1, request, response))
    writer.close()
    line = (tmp_path / "out.jsonl").read_bytes()
    assert b"bad \\ud800 text" in line
    assert json.loads(line)["response"] == response.model_dump(mode="json")


def test_provider_error_with_lone_surrogates_costs_no_row(tmp_path: Path) -> None:
    """An error message carrying a lone surrogate becomes its row; the batch goes on."""
    source = tmp_path / "in.jsonl"
    lines = [
        {
            "request_id": rid,
            "vendor": "openai",
            "model": "gpt-5",
            "messages": [{"role": "user", "content": rid}],
        }
        for rid in ("first", "second")
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    error = {
        "message": "bad \ud800 thing",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    with Emulator() as emulator:
        emulator.enqueue_reply("openai", json.dumps({"error": error}).encode(), status=400)
        settings = emulator_settings(emulator, max_attempts=1)
        summary = run_batch(source, tmp_path / "out.jsonl", settings=settings, concurrency=1)
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert summary.outcomes == {"ok": 1, "provider_error": 1}
    assert [row["request_id"] for row in rows] == ["first", "second"]
    assert rows[0]["error"]["provider_message"] == "bad \ud800 thing"


def test_a_row_that_does_not_fit_is_removed_whole_and_writing_stops(tmp_path: Path) -> None:
    """The failed row leaves no partial line; every later write raises the same error."""
    path = tmp_path / "out.jsonl"
    writer = ResultWriter(path)
    writer.write({"request_id": "fits"})
    with file_size_limit(1 << 20), pytest.raises(OutputWriteError) as caught:
        writer.write({"request_id": "too big", "padding": "x" * (2 << 20)})
    assert caught.value.errno == errno.EFBIG
    assert caught.value.rows_written == 1
    assert "this run wrote 1 rows before it" in str(caught.value)
    with pytest.raises(OutputWriteError) as again:
        writer.write({"request_id": "small"})
    assert again.value is caught.value
    writer.close()
    assert path.read_text() == '{"request_id":"fits"}\n'


def test_a_device_is_never_opened_for_rows(tmp_path: Path) -> None:
    """The writer itself refuses what is not a regular file, before cutting anything."""
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ValueError, match="not a regular file"):
        ResultWriter(tmp_path / "fifo")
