"""Where a batch writes: never into its input, never into anything but a regular file."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from router.batch import run_batch
from router.cli import main
from support.file_limits import file_size_limit
from support.hostile_lines import valid_request

MODES: dict[str, dict[str, Any]] = {
    "fresh": {},
    "resume": {"resume": True},
    "overwrite": {"overwrite": True},
}


def requests_file(path: Path) -> Path:
    import json

    path.write_text("".join(json.dumps(valid_request(n)) + "\n" for n in range(3)))
    return path


def spellings(source: Path) -> dict[str, Path]:
    """The input file under other names: itself, another path, a symlink, a hard link."""
    (source.parent / "link").symlink_to(source)
    os.link(source, source.parent / "hard")
    (source.parent / "sub").mkdir()
    return {
        "same path": source,
        "another spelling": source.parent / "sub" / ".." / source.name,
        "symlink": source.parent / "link",
        "hard link": source.parent / "hard",
    }


@pytest.mark.parametrize("mode", MODES.values(), ids=MODES.keys())
@pytest.mark.parametrize("spelling", ["same path", "another spelling", "symlink", "hard link"])
def test_the_input_itself_is_refused_as_output(
    spelling: str, mode: dict[str, Any], tmp_path: Path
) -> None:
    """OUT naming the input by any path is refused before anything is read or written."""
    source = requests_file(tmp_path / "in.jsonl")
    before = source.read_bytes()
    target = spellings(source)[spelling]
    # The limit stops a regression that appends rows to the input it reads from going on until
    # memory runs out (reading its own rows as new requests, it never ends).
    with file_size_limit(1 << 20), pytest.raises(ValueError, match="is the input file itself"):
        run_batch(source, target, **mode)
    assert source.read_bytes() == before


def device_node(path: Path, name: str) -> Path:
    """A character device node of the given kind (full or null) at ``path``, made for the test.

    Never the system's own /dev/full or /dev/null: a regression that deletes its output would
    delete the machine's device node (as root, the bug this guards against did just that).
    """
    major_minor = {"full": (1, 7), "null": (1, 3)}[name]
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(*major_minor))
    except PermissionError as exc:
        pytest.skip(f"cannot make a device node here ({exc.strerror}): needs root")
    return path


@pytest.mark.parametrize("flags", [[], ["--overwrite"], ["--resume"]], ids=["", "over", "res"])
@pytest.mark.parametrize("kind", ["full", "null"])
def test_a_device_output_is_refused_and_left_in_place(
    kind: str, flags: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o a copy of /dev/full (or null) with --overwrite exits 2, clearly; the node stays."""
    device = device_node(tmp_path / f"dev-{kind}", kind)
    before = device.stat()
    source = requests_file(tmp_path / "in.jsonl")
    assert main(["batch", str(source), "-o", str(device), *flags, "--no-progress"]) == 2
    assert f"{device} is not a regular file" in capsys.readouterr().err
    after = device.stat()
    assert stat.S_ISCHR(after.st_mode)
    assert after.st_rdev == before.st_rdev


def test_a_fifo_or_a_directory_is_refused_as_output(tmp_path: Path) -> None:
    """Neither can be cut, appended to and read back: both are refused."""
    source = requests_file(tmp_path / "in.jsonl")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    for target in (tmp_path / "fifo", tmp_path / "dir"):
        with pytest.raises(ValueError, match="is not a regular file"):
            run_batch(source, target, overwrite=True)
    assert stat.S_ISFIFO((tmp_path / "fifo").stat().st_mode)
    assert (tmp_path / "dir").is_dir()
