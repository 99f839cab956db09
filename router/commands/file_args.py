"""The files a command is given: checked up front, each problem said in one form.

``cannot read FILE (FLAG): reason`` or ``cannot write FILE (FLAG): reason``, FLAG being the
argument that named the file, so a user knows which of several paths to fix. Checks are done
before a request is sent, and before anything is written.
"""

from __future__ import annotations

import argparse
import errno
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from router.batch.saved_replies import ReplySaver

__all__ = [
    "FileArgumentError",
    "add_save_replies_flag",
    "check_input_file",
    "check_output_file",
    "is_remote",
    "prepared_input",
    "reply_saver",
    "stdin_or_path",
]


class FileArgumentError(OSError):
    """A file named on the command line cannot be used; ``str()`` is the whole message."""

    def __init__(self, action: str, path: str | Path, flag: str, reason: str) -> None:
        super().__init__(f"cannot {action} {path} ({flag}): {reason}")


def is_remote(path: str | Path) -> bool:
    """True for an object-store URI (``s3://...``), which only the Ray engine reads."""
    return "://" in str(path)


def check_input_file(
    path: Path, flag: str, *, what: str = "requests", shown: str | None = None
) -> None:
    """Refuse an input that is missing, a directory, unreadable, or without a non-blank line.

    ``shown`` is the name the message gives the file (``stdin`` for a copy of it).
    """
    name = shown or str(path)
    if path.is_dir():
        raise FileArgumentError("read", name, flag, "is a directory")
    try:
        with path.open("rb") as handle:
            empty = not any(chunk.strip() for chunk in iter(lambda: handle.read(65536), b""))
    except OSError as exc:
        raise FileArgumentError("read", name, flag, _reason(exc)) from exc
    if empty:
        raise FileArgumentError("read", name, flag, f"the file is empty: no {what} to run")


def check_output_file(path: Path, flag: str, *, resume: bool, overwrite: bool) -> None:
    """Refuse an output in a directory that does not exist, a directory, or a finished file
    that neither ``--resume`` nor ``--overwrite`` says what to do with."""
    parent = path.parent
    if not parent.is_dir():
        reason = (
            f"the directory {parent} does not exist"
            if not parent.exists()
            else f"{parent} is not a directory"
        )
        raise FileArgumentError("write", path, flag, reason)
    if path.is_dir():
        raise FileArgumentError("write", path, flag, "is a directory")
    if not (resume or overwrite) and path.is_file() and path.stat().st_size > 0:
        raise FileArgumentError(
            "write",
            path,
            flag,
            "it already holds results: pass --resume to continue it, or --overwrite to start over",
        )


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "no such file"
    return exc.strerror or os.strerror(exc.errno or 0) or str(exc)


@contextmanager
def prepared_input(path: str, flag: str, *, input_format: str = "jsonl") -> Iterator[Path]:
    """The input file to read: ``path`` itself, or a temporary copy of stdin (``-``) or of
    ``path`` converted from OpenAI's Batch API format, removed afterwards.

    A batch reads its input more than once (to count it, then to run it), so stdin is kept in a
    file first. Checked as :func:`check_input_file` says.
    """
    from router.batch.openai_batch import convert_line

    if path != "-" and input_format == "jsonl":
        check_input_file(Path(path), flag)
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="grounding-router-") as folder:
        copy = Path(folder) / "input.jsonl"
        source = sys.stdin.buffer if path == "-" else None
        if source is None:
            check_input_file(Path(path), flag)
        with copy.open("wb") as sink, source or Path(path).open("rb") as lines:
            for line in lines:
                if input_format == "openai-batch" and line.strip():
                    converted = convert_line(line.decode("utf-8", errors="replace").rstrip("\r\n"))
                    sink.write(converted.encode() + b"\n")
                else:
                    sink.write(line)
        check_input_file(copy, flag, shown="stdin" if path == "-" else path)
        yield copy


def add_save_replies_flag(parser: argparse.ArgumentParser) -> None:
    """``--save-replies DIR``: keep each provider reply for ``extract`` to replay."""
    parser.add_argument(
        "--save-replies",
        type=Path,
        metavar="DIR",
        help="keep each provider reply, as sent, in DIR/<request_id>/NN-<host>.body, to "
        "replay with `grounding-router extract --vendor V FILE` instead of paying again",
    )


def reply_saver(folder: Path) -> ReplySaver:
    """The saver for ``--save-replies DIR``; DIR is made when its parent exists."""
    from router.batch.saved_replies import ReplySaver

    if folder.exists() and not folder.is_dir():
        raise FileArgumentError("write", folder, "--save-replies", "not a directory")
    if not folder.parent.is_dir():
        reason = f"the directory {folder.parent} does not exist"
        raise FileArgumentError("write", folder, "--save-replies", reason)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise FileArgumentError("write", folder, "--save-replies", _reason(exc)) from exc
    return ReplySaver(folder)


@contextmanager
def stdin_or_path(path: Path) -> Iterator[Path]:
    """``path`` itself, or for ``-`` a temporary copy of stdin, removed afterwards."""
    if str(path) != "-":
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="grounding-router-") as folder:
        copy = Path(folder) / "stdin.jsonl"
        with copy.open("wb") as sink:
            shutil.copyfileobj(sys.stdin.buffer, sink)
        yield copy
