"""Batch rows are always written, whatever text a provider's reply or error carried."""

from __future__ import annotations

import json
from pathlib import Path

from router.batch import run_batch
from router.batch.output import ResultWriter
from router.emulator import Emulator
from support.emulated import emulator_settings


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
