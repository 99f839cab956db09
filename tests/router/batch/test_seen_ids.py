"""The ids a batch has met, kept on disk: exact, whatever their number or their characters."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from router.batch.seen_ids import SeenIds
from support.logs import capture_logs

# Enough ids (about 8 MB of keys) that SQLite's page cache of about 2 MB must write most of
# them out to its file and read them back.
MANY = 200_000


def test_each_id_is_known_with_the_line_it_was_first_met_on() -> None:
    """Ids met once give their own line; met again, the line of the first time."""
    with SeenIds() as seen:
        assert [seen.first_line(f"req-{n:06}-{'x' * 20}", n) for n in range(MANY)] == list(
            range(MANY)
        )
        again = range(0, MANY, 997)
        assert [seen.first_line(f"req-{n:06}-{'x' * 20}", MANY + n) for n in again] == list(again)


def test_an_id_never_met_is_not_known() -> None:
    """Membership is exact: neighbours of the ids held are not among them."""
    with SeenIds() as seen:
        seen.update(f"req-{n}" for n in range(0, MANY, 2))
        assert all(f"req-{n}" in seen for n in range(0, MANY, 2))
        assert not any(f"req-{n}" in seen for n in range(1, MANY, 2))


@pytest.mark.parametrize(
    "ids",
    [
        ("a\ud800", "a\udc00", "a\ufffd", "a"),  # lone surrogates, as JSON escapes allow
        ("caf\u00e9", "cafe\u0301"),  # the same text in two normal forms
        ("a\x00b", "a", "a\x00c"),  # NUL inside an id
        ("A", "a", " a", "a "),
    ],
    ids=["surrogates", "normal forms", "nul", "case and spaces"],
)
def test_ids_that_differ_in_any_code_point_are_distinct(ids: tuple[str, ...]) -> None:
    """No two different ids are taken for one: each is first met on its own line."""
    with SeenIds() as seen:
        assert [seen.first_line(request_id, n) for n, request_id in enumerate(ids)] == list(
            range(len(ids))
        )
        assert all(request_id in seen for request_id in ids)


def _open_files_named(prefix: str) -> list[Path]:
    """The files this process holds open whose name (as it was at opening) starts so."""
    found = []
    for descriptor in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):  # the descriptor of the listing itself is gone
            target = os.readlink(descriptor)
            if Path(target).name.startswith(prefix):
                found.append(descriptor)
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux's /proc")
def test_the_database_is_a_nameless_file_of_the_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ids live in a file made in the temporary directory, whose name is gone as soon as
    SQLite has it open: the ids spill to it, and nothing is left to remove."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with SeenIds() as seen:
        assert list(tmp_path.iterdir()) == []
        seen.update(f"req-{n:06}-{'x' * 20}" for n in range(MANY))  # past SQLite's page cache
        (database,) = _open_files_named("grounding-router-ids-")
        assert os.readlink(database).startswith(str(tmp_path))
        assert database.stat().st_size > 4_000_000
        assert f"req-{MANY - 1:06}-{'x' * 20}" in seen
    assert _open_files_named("grounding-router-ids-") == []


@pytest.mark.skipif(sys.platform == "win32", reason="an open file keeps its name on Windows")
def test_a_process_killed_outright_leaves_no_file(tmp_path: Path) -> None:
    """SIGKILL gives no chance to clean up: the index must not need one."""
    code = (
        "import sys\n"
        "from router.batch.seen_ids import SeenIds\n"
        "seen = SeenIds()\n"
        "seen.update(f'req-{n}' for n in range(50_000))\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"
    )
    environment = {**os.environ, "TMPDIR": str(tmp_path)}
    with subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=environment,
    ) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == "ready\n"
        process.kill()
        process.wait(timeout=60)
    assert list(tmp_path.iterdir()) == []


def test_without_a_usable_temporary_directory_the_ids_are_kept_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No writable temporary directory: the index still works, and a warning says why."""
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_directory))
    with capture_logs() as events, SeenIds() as seen:
        assert [seen.first_line(f"req-{n}", n) for n in range(1000)] == list(range(1000))
        assert seen.first_line("req-7", 5000) == 7
    (warning,) = [event for event in events if event["event"] == "batch_ids_in_memory"]
    assert warning["log_level"] == "warning"
    assert "no usable temporary directory" in warning["reason"]
