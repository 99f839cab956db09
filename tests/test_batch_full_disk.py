"""A batch whose output cannot be written stops with a clear error and keeps every row it wrote.

The disk fills in two ways: a file-size limit on the batch process (RLIMIT_FSIZE, which any
user may set: writes past it fail with EFBIG), and a small tmpfs (ENOSPC), mounted when the tests
may mount one. Each run must end by itself, exit 2 with a message naming the cause, leave only
complete rows, and a resumed run with room must finish with every request_id exactly once.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.emulator import Emulator
from support.emulated import cli_environment
from support.hostile_lines import valid_request

HANG_GUARD_S = 300
REQUESTS = 100
# Run the batch command under a file-size limit: set it, then become the command.
LIMITED = (
    "import os, resource, sys; limit = int(sys.argv[1]); "
    "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)); "
    "os.execv(sys.executable, [sys.executable, '-m', 'router.cli', *sys.argv[2:]])"
)


def batch_command(emulator: Emulator, args: list[str], *, file_limit: int | None = None) -> Any:
    prefix = ["-m", "router.cli"] if file_limit is None else ["-c", LIMITED, str(file_limit)]
    return subprocess.run(
        [sys.executable, *prefix, "batch", *args, "--no-progress"],
        env=cli_environment(emulator),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        check=False,
    )


def requests_file(path: Path) -> set[str]:
    """REQUESTS lines, every tenth an invalid request (its error row comes from the reader)."""
    lines = []
    for n in range(REQUESTS):
        vendor = {"vendor": "nobody"} if n % 10 == 0 else {}
        lines.append(json.dumps(valid_request(n, request_id=f"r{n}", grounded=True, **vendor)))
    path.write_text("".join(line + "\n" for line in lines))
    return {f"r{n}" for n in range(REQUESTS)}


def complete_rows(path: Path) -> list[dict[str, Any]]:
    """Every line of OUT, each of which must be a whole row."""
    text = path.read_text()
    assert text == "" or text.endswith("\n"), "a row was left cut short"
    return [json.loads(line) for line in text.splitlines()]


def assert_stopped_cleanly(result: Any, out: Path, cause: str) -> list[dict[str, Any]]:
    """Exit 2, the cause and the way on said in one message, and as many rows as it says."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert cause in result.stderr
    assert "--resume" in result.stderr
    written = re.search(r"this run wrote (\d+) rows before it", result.stderr)
    assert written is not None, result.stderr
    rows = complete_rows(out)
    assert len(rows) == int(written.group(1))
    assert len({row["request_id"] for row in rows}) == len(rows)
    return rows


def assert_resumed_completely(emulator: Emulator, source: Path, out: Path, ids: set[str]) -> None:
    resumed = batch_command(emulator, [str(source), "-o", str(out), "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    rows = complete_rows(out)
    assert sorted(row["request_id"] for row in rows) == sorted(ids)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_file_size_limit_stops_the_run_with_every_written_row_kept(
    workers: str, emulator: Emulator, tmp_path: Path
) -> None:
    """Writes past RLIMIT_FSIZE fail: exit 2 naming the cause; a resume with room finishes."""
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    ids = requests_file(source)
    args = [str(source), "-o", str(out), "--workers", workers]
    limited = batch_command(emulator, args, file_limit=40_000)
    rows = assert_stopped_cleanly(limited, out, "File too large")
    assert 0 < len(rows) < REQUESTS
    assert_resumed_completely(emulator, source, out, ids)


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs mounted for the test, or a skip saying why it could not be."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def remount(mount_point: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(mount_point)], check=True)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_full_tmpfs_stops_the_run_with_every_written_row_kept(
    workers: str, emulator: Emulator, small_tmpfs: Path, tmp_path: Path
) -> None:
    """ENOSPC: exit 2; read-only: exit 2, nothing changed; with room: resume finishes."""
    source, out = tmp_path / "in.jsonl", small_tmpfs / "out.jsonl"
    ids = requests_file(source)
    filler = small_tmpfs / "filler"
    filler.write_bytes(b"x" * 24_000)  # leave room for a few rows only
    full = batch_command(emulator, [str(source), "-o", str(out), "--workers", workers])
    rows = assert_stopped_cleanly(full, out, "No space left on device")
    assert len(rows) < REQUESTS
    kept = out.read_bytes()
    remount(small_tmpfs, "ro")
    read_only = batch_command(emulator, [str(source), "-o", str(out), "--resume"])
    assert read_only.returncode == 2, read_only.stderr
    assert "Read-only file system (the file was not changed)" in read_only.stderr
    assert "Traceback" not in read_only.stderr
    assert out.read_bytes() == kept
    remount(small_tmpfs, "rw,size=16m")
    assert_resumed_completely(emulator, source, out, ids)
