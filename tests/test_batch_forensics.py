"""A forensic batch run over worker processes: every debug event says which request it is for."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from router.emulator import Emulator
from support.emulated import MODELS, VENDORS, cli_environment, grounded_request


@pytest.mark.timeout(120)
def test_worker_debug_events_carry_their_request(emulator: Emulator, tmp_path: Path) -> None:
    """DEBUG_GROUNDING batch --workers 2 --log-json: the workers' extraction events are JSON
    lines on stderr, each with the request_id, vendor and model of its request."""
    requests = [
        grounded_request(vendor, f"Forensics {n} ({vendor})", request_id=f"{vendor}-{n}")
        for n in range(4)
        for vendor in VENDORS
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(request) + "\n" for request in requests))
    argv = [sys.executable, "-m", "router.cli", "batch", str(source), "-o", str(tmp_path / "out")]
    options = ["--workers", "2", "--concurrency", "4", "--no-progress", "--log-json"]
    environment = {**cli_environment(emulator), "DEBUG_GROUNDING": "true"}
    done = subprocess.run(
        [*argv, *options], check=False, env=environment, capture_output=True, text=True, timeout=110
    )
    assert done.returncode == 0, done.stderr[-2000:]
    derived: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for line in done.stderr.splitlines():
        event = json.loads(line)
        if event["event"] == "citation_domain_derived":
            derived[event["request_id"]].add((event["vendor"], event["model"]))
    assert set(derived) == {request["request_id"] for request in requests}
    for request_id, seen in derived.items():
        vendor = request_id.split("-")[0]
        assert seen == {(vendor, MODELS[vendor])}
