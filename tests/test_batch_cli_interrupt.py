"""Ctrl-C in a one-process ``batch``: the run drains and exits 130 with nothing but its summary."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from router.emulator import Emulator
from support.emulated import batch_cli, grounded_request, rows_of


def test_sigint_in_one_process_leaves_no_traceback(emulator: Emulator, tmp_path: Path) -> None:
    """SIGINT midway exits 130 with the summary and no asyncio traceback on stderr."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    lines = [
        json.dumps({"request_id": f"r{n}", **grounded_request("openai", f"town {n}?")})
        for n in range(300)
    ]
    source.write_text("\n".join(lines) + "\n")
    emulator.latency_s = 0.02
    emulator.clear_requests()
    try:
        process = batch_cli(emulator, str(source), "-o", str(out), "--concurrency=8")
        emulator.wait_for_requests(30, timeout=60)
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        emulator.latency_s = 0.0
    assert process.returncode == 130
    assert "batch summary (interrupted)" in stdout
    assert "Traceback" not in stderr
    assert "never retrieved" not in stderr
    assert "CancelledError" not in stderr
    assert 0 < len(rows_of(out)) < len(lines)
