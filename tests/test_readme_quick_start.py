"""The README's quick start runs as printed, in bash, against an emulator, and ends with a report.

The block's first line starts the emulator on port 8099; here the test's own emulator stands in
for it (on a free port), so the commands after it run exactly as a reader types them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from router.emulator import Emulator

ROOT = Path(__file__).resolve().parents[1]
README_PORT = "127.0.0.1:8099"


def quick_start_block() -> str:
    """The ```sh block of the README's quick start section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"^```sh\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    assert found is not None, "README: the quick start has no sh block"
    return found.group(1)


def test_quick_start_runs_as_printed(emulator: Emulator, tmp_path: Path) -> None:
    """Every command of the quick start succeeds; the batch writes one answered row and the
    report is a page that names it."""
    first, *commands = quick_start_block().splitlines()
    assert first.startswith("grounding-router emulator --port 8099 &")
    host_port = emulator.openai_base_url.split("//", 1)[1].split("/", 1)[0]
    script = "set -euo pipefail\n" + "\n".join(commands).replace(README_PORT, host_port)
    bin_dir = str(Path(sys.executable).parent)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        env={
            **{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))},
            "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")]),
            "PYTHONPATH": os.pathsep.join(sys.path),
            "GROUNDING_ROUTER_RETRY_INITIAL_DELAY_S": "0",
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [(row["request_id"], row["ok"]) for row in rows] == [("q1", True)]
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert "q1" in page
