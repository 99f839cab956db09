"""Batch lines with fallbacks, end to end through the CLI: rows, summary, resume after a kill.

Every third line's question fails REQUIRED grounding on OpenAI (a model that skips the search)
and falls back to Anthropic; every fifth line's question gets a 500 on OpenAI on every attempt
and falls back too; the rest are answered by OpenAI. So each row's answering vendor and the
fallbacks taken are known in advance.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from router.emulator import Emulator
from support.emulated import batch_cli, batch_cli_killed_midway, complete_rows, rows_of


def write_lines(path: Path, count: int) -> tuple[dict[str, str], Counter[str]]:
    """Write ``count`` lines; return each id's answering vendor and the fallbacks by reason."""
    answered_by: dict[str, str] = {}
    reasons: Counter[str] = Counter()
    with path.open("w") as handle:
        for number in range(count):
            request_id = f"fb-{number:04d}"
            fault, vendor = "", "openai"
            if number % 3 == 0:
                fault, vendor = "[[emulator:fault=no_search@openai]]", "anthropic"
                reasons["not_invoked"] += 1
            elif number % 5 == 0:
                fault, vendor = "[[emulator:fault=500@openai]]", "anthropic"
                reasons["server_error"] += 1
            answered_by[request_id] = vendor
            line = {
                "request_id": request_id,
                "vendor": "openai",
                "model": "gpt-5",
                "grounded": True,
                "grounding_mode": "REQUIRED",
                "fallbacks": [{"vendor": "anthropic"}],
                "messages": [{"role": "user", "content": f"Who wrote book {number}? {fault}"}],
            }
            handle.write(json.dumps(line) + "\n")
    return answered_by, reasons


def test_summary_counts_answers_by_vendor_and_fallbacks_by_reason(
    emulator: Emulator, tmp_path: Path
) -> None:
    """--summary-json counts each answer under the vendor that gave it, and fallbacks by reason."""
    answered_by, reasons = write_lines(tmp_path / "in.jsonl", 30)
    out, summary_file = tmp_path / "out.jsonl", tmp_path / "summary.json"
    process = batch_cli(
        emulator, str(tmp_path / "in.jsonl"), "-o", str(out), "--summary-json", str(summary_file)
    )
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    rows = rows_of(out)
    assert {row["request_id"]: row["response"]["vendor"] for row in rows} == answered_by
    summary = json.loads(summary_file.read_text())
    assert summary["answers_by_vendor"] == dict(sorted(Counter(answered_by.values()).items()))
    assert summary["fallback_reasons"] == dict(sorted(reasons.items()))
    assert "fallbacks taken" in stdout


def test_killed_fallback_batch_resumed_gives_every_row_once(
    emulator: Emulator, tmp_path: Path
) -> None:
    """SIGKILL midway through a batch with fallbacks, then --resume: every id exactly once."""
    answered_by, _ = write_lines(tmp_path / "in.jsonl", 120)
    out, source = tmp_path / "out.jsonl", str(tmp_path / "in.jsonl")
    batch_cli_killed_midway(emulator, source, "-o", str(out), "--concurrency=8", after_requests=40)
    assert len(complete_rows(out)) < len(answered_by)
    resumed = batch_cli(emulator, source, "-o", str(out), "--resume")
    _, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr
    rows = rows_of(out)
    ids = [row["request_id"] for row in rows]
    assert sorted(ids) == sorted(answered_by)
    assert {row["request_id"]: row["response"]["vendor"] for row in rows} == answered_by
