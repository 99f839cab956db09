"""The Ray driver's memory does not grow with the job: peak RSS at 100,000 rows and at 10,000.

The driver is the CLI in a subprocess of its own joining this module's cluster, so its peak RSS
(``support.peak_rss``) is the driver's alone: Ray's daemons and the routing actors are
processes of the cluster, the emulator one of its own. Replies come at once (no latency), so
the rows flow as fast as the actors route them and the driver sees all of them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import support.peak_rss
from support.emulated import cli_environment
from support.emulator_process import EmulatorAddresses, emulator_process
from support.ray_cluster import local_cluster

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600), pytest.mark.xdist_group("ray")]

SMALL_ROWS = 10_000
LARGE_ROWS = 100_000
RSS_BOUND = 1.3  # the driver's peak at LARGE_ROWS over its peak at SMALL_ROWS, at most
CONCURRENCY = 64


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """A local Ray cluster for this module; its address, for CLI runs that join it."""
    with local_cluster() as address:
        yield address


@pytest.fixture(scope="module")
def emulator() -> Iterator[EmulatorAddresses]:
    with emulator_process() as addresses:
        yield addresses


def write_requests(path: Path, size: int) -> None:
    with path.open("w") as handle:
        for n in range(size):
            request = {
                "request_id": f"row-{n:06d}",
                "vendor": "openai" if n % 2 else "vertex",
                "model": "gpt-5" if n % 2 else "gemini-2.5-flash",
                "messages": [{"role": "user", "content": f"What happened in town {n}?"}],
                "grounded": True,
            }
            handle.write(json.dumps(request) + "\n")


def driver_peak_rss_kib(
    ray_address: str, emulator: EmulatorAddresses, folder: Path, rows: int
) -> int:
    """Run a job of ``rows`` requests into one merged ``.jsonl``; the driver's peak RSS."""
    folder.mkdir()
    write_requests(folder / "in.jsonl", rows)
    report = folder / "peak_rss"
    finished = subprocess.run(
        [
            sys.executable,
            support.peak_rss.__file__,
            str(report),
            "batch",
            str(folder / "in.jsonl"),
            "-o",
            str(folder / "out.jsonl"),
            "--engine",
            "ray",
            "--ray-address",
            ray_address,
            "--actors",
            "2:2",
            "--concurrency",
            str(CONCURRENCY),
            "--no-progress",
        ],
        env=cli_environment(emulator),
        check=False,
        capture_output=True,
        text=True,
    )
    assert finished.returncode == 0, finished.stderr[-4000:]
    with (folder / "out.jsonl").open("rb") as merged:
        assert sum(1 for _ in merged) == rows
    return int(report.read_text())


def test_driver_rss_at_100k_rows_is_within_1_3x_of_10k(
    ray_address: str, emulator: EmulatorAddresses, tmp_path: Path
) -> None:
    """Ten times the rows: the driver's peak RSS at most 1.3 times as high."""
    small = driver_peak_rss_kib(ray_address, emulator, tmp_path / "small", SMALL_ROWS)
    large = driver_peak_rss_kib(ray_address, emulator, tmp_path / "large", LARGE_ROWS)
    print(f"driver peak RSS: {SMALL_ROWS} rows {small} KiB, {LARGE_ROWS} rows {large} KiB")
    assert large <= RSS_BOUND * small, (small, large)
