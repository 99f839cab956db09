"""The batch output file: one JSON line per request, written whole and flushed as it arrives.

A line is written with a single ``write`` of the full text plus newline and flushed at once, so a
killed run leaves at most one partial last line. Resuming reads the ids already present, cuts such
a partial line off, and appends after the last complete one: every request_id ends up exactly once.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pydantic_core

from router.batch.seen_ids import SeenIds
from router.batch.stats import RowFacts, row_facts
from router.errors import RouterError
from router.logging import get_logger
from router.schema import SCHEMA_VERSION, check_schema_version
from router.text.jsonl import UnreadableLineError, loads, read_lines
from router.text.redaction import redact_text
from router.types import LLMRequest, LLMResponse

if TYPE_CHECKING:
    from router.router import UnifiedLLMAdapter

__all__ = [
    "OutputWriteError",
    "ResultWriter",
    "answer_row",
    "check_output_path",
    "error_row",
    "existing_request_ids",
    "line_bytes",
    "request_summary",
    "row_request_id",
    "row_text",
    "success_row",
    "unexpected_error",
]

log = get_logger(__name__)


def success_row(line: int, request: LLMRequest, response: LLMResponse) -> dict[str, Any]:
    """The output row of a request that was answered (and passed validation).

    The response stays a model: :func:`row_text` serialises it straight to JSON, as
    ``model_dump(mode="json")`` would have it, without building the dict in between.
    """
    return {
        "schema_version": SCHEMA_VERSION,
        "request_id": request.request_id,
        "ok": True,
        "line": line,
        "request": request_summary(request),
        "response": response,
    }


def error_row(
    line: int, request_id: str, error: RouterError, request: LLMRequest | None = None
) -> dict[str, Any]:
    """The output row of a request that failed: its error, typed, with the reason and status."""
    return {
        "schema_version": SCHEMA_VERSION,
        "request_id": request_id,
        "ok": False,
        "line": line,
        "request": request_summary(request) if request is not None else None,
        "error": error.to_dict(),
    }


async def answer_row(
    router: UnifiedLLMAdapter, line: int, request: LLMRequest
) -> tuple[str, RowFacts]:
    """Route one request; its row as one line of JSON, and the facts the statistics count.

    Whatever happens, routing or serialising the answer, the request gets exactly one row.
    """
    request_id = request.request_id or ""
    try:
        response = await router.aroute(request)
        return row_text(success_row(line, request, response)), row_facts(response=response)
    except RouterError as error:
        failure = error
    except Exception as exc:  # a bug must cost one row, not the run
        log.exception("batch_row_failed", request_id=request_id)
        failure = unexpected_error(exc)
    facts = row_facts(error=failure, vendor=request.vendor)
    return row_text(error_row(line, request_id, failure, request)), facts


def row_text(row: Mapping[str, Any]) -> str:
    """A row as the one line of JSON the output file holds (without the newline).

    pydantic-core writes it (models in it as ``model_dump(mode="json")`` has them) in a fifth of
    the time ``json.dumps`` takes over the dumped dict; a batch row is 5-20 kB of citations and
    ``raw`` provider objects. Text with a lone surrogate cannot be UTF-8, which is all
    pydantic-core writes: such a row goes through ``json.dumps``, and :func:`line_bytes` writes
    the surrogate as the JSON escape it came as.
    """
    try:
        return pydantic_core.to_json(row).decode()
    except pydantic_core.PydanticSerializationError:
        plain = pydantic_core.to_jsonable_python(row)
        return json.dumps(plain, ensure_ascii=False, separators=(",", ":"))


def line_bytes(text: str) -> bytes:
    """A row's text as the bytes of its output line, newline included, as every engine writes it.

    A configured secret a provider quoted back never reaches the output, in any encoding. A
    lone surrogate (from a provider's "\\ud800" escape) cannot be UTF-8: it is written as the
    JSON escape it came as. JSON text holds non-ASCII only inside strings, so it stays valid.
    """
    return redact_text(text, shapes=False).encode("utf-8", "backslashreplace") + b"\n"


def unexpected_error(exc: Exception) -> RouterError:
    """What a row records when routing failed with something other than a ``RouterError``."""
    return RouterError(f"unexpected {type(exc).__name__}: {exc}", reason="unexpected_error")


def request_summary(request: LLMRequest) -> dict[str, Any]:
    """What a report needs to group by, without repeating the prompt."""
    location = request.user_location
    return {
        "vendor": request.vendor,
        "model": request.model,
        "grounded": request.grounded,
        "grounding_mode": request.grounding_mode,
        "user_location": location.model_dump(exclude_none=True) if location else None,
    }


def existing_request_ids(path: Path) -> tuple[SeenIds, int]:
    """Ids of the complete rows in ``path`` and the byte length those rows occupy.

    A last line without its newline is not complete: the returned length stops before it so the
    writer can cut it off. A complete line that is not a row with a request_id (whatever it
    holds) is kept and names no id. The ids are kept on disk, not in memory: close them when
    done.
    """
    ids = SeenIds()
    complete_length = 0
    if not path.exists():
        return ids, 0
    try:
        with path.open("rb") as handle:
            for line in read_lines(handle):
                if not line.complete:
                    break
                request_id = row_request_id(line.data, f"{path} line {line.number}")
                if request_id is not None:
                    ids.add(request_id)
                complete_length = line.end
    except BaseException:
        ids.close()
        raise
    return ids, complete_length


def row_request_id(data: bytes, where: str = "an output row") -> str | None:
    """The request_id of an output line, or None when the line is not a row.

    A row written by a newer major version (:mod:`router.schema`) is refused
    (``SchemaVersionError``, naming ``where``): resuming would mix two shapes in one file.
    """
    try:
        row = loads(data)
    except UnreadableLineError:
        return None
    if isinstance(row, dict):
        check_schema_version(row, where)
    request_id = row.get("request_id") if isinstance(row, dict) else None
    return request_id if isinstance(request_id, str) else None


def check_output_path(source: Path, target: Path) -> None:
    """Refuse an output that is not a regular file, or that is the input file itself.

    A batch truncates, appends to and reads back its output: done to a device, a FIFO or a
    directory that is nonsense at best (as root, deleting ``/dev/full``), and done to the input
    it destroys the requests. The same file is recognised by device and inode, so a symlink, a
    hard link or another spelling of the path is refused too.
    """
    try:
        found = target.stat()
    except FileNotFoundError:
        return
    if not stat.S_ISREG(found.st_mode):
        raise ValueError(
            f"{target} is not a regular file (a device, a FIFO or a directory): "
            "the output must be a file the batch can truncate, append to and read back"
        )
    if os.path.samestat(found, source.stat()):
        raise ValueError(f"{target} is the input file itself: give another output file")


class OutputWriteError(OSError):
    """The output file could not be opened or written: disk full, read-only, too large.

    Every row written before the failure is complete and kept (a row cut short is removed where
    the file system allows, and skipped by ``--resume`` otherwise); a resumed run finishes the
    rest once the cause is fixed. A file that could not be opened was not changed at all.
    """

    def __init__(self, path: Path, cause: OSError, *, rows_written: int | None = None) -> None:
        reason = cause.strerror or str(cause)
        super().__init__(cause.errno, reason)
        self.filename = str(path)
        self.rows_written = rows_written or 0
        if rows_written is None:
            self.message = f"cannot write {path}: {reason} (the file was not changed)"
        else:
            self.message = (
                f"cannot write {path}: {reason}; this run wrote {rows_written} rows before it, "
                "and they, like any before them, are complete and kept: fix the cause and run "
                "again with --resume to finish"
            )

    def __str__(self) -> str:
        return self.message


class ResultWriter:
    """Appends rows to the output file; the only writer of that file.

    Opening it cuts the file to ``keep_bytes`` (the complete rows a resumed run keeps, 0 for a
    fresh or overwritten run): it is opened only once everything else about the run has been
    checked, so a run that cannot start leaves the file as it was. The first failed write
    (:class:`OutputWriteError`) stops all writing: the same error is raised for every row after.
    """

    def __init__(self, path: Path, *, keep_bytes: int = 0) -> None:
        self.path = path
        self.rows_written = 0
        self.failure: OutputWriteError | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OutputWriteError(path, exc) from exc
        try:
            if not stat.S_ISREG(os.fstat(self._fd).st_mode):
                raise ValueError(f"{path} is not a regular file")
            os.ftruncate(self._fd, keep_bytes)
            os.lseek(self._fd, keep_bytes, os.SEEK_SET)
        except OSError as exc:
            os.close(self._fd)
            raise OutputWriteError(path, exc) from exc
        except ValueError:
            os.close(self._fd)
            raise
        self._length = keep_bytes

    def write(self, row: Mapping[str, Any]) -> None:
        """Write one row as one line, handed to the operating system at once."""
        self.write_line(row_text(row))

    def write_line(self, line: str) -> None:
        """Write an already serialised row (from a worker process)."""
        if self.failure is not None:
            raise self.failure
        encoded = line_bytes(line)
        unwritten = memoryview(encoded)
        try:
            while unwritten:  # a write may take only part of a row, on a nearly full disk
                unwritten = unwritten[os.write(self._fd, unwritten) :]
        except OSError as exc:
            self._fail(exc)
        self._length += len(encoded)
        self.rows_written += 1

    def _fail(self, cause: OSError) -> NoReturn:
        """Remove what part of the row was written, remember the failure, raise it."""
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, self._length)
            os.lseek(self._fd, self._length, os.SEEK_SET)
        self.failure = OutputWriteError(self.path, cause, rows_written=self.rows_written)
        raise self.failure from cause

    def close(self) -> None:
        """Flush to disk and close; a failure to flush is a write failure like any other."""
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            if self.failure is None:
                os.fsync(fd)
        except OSError as exc:
            self.failure = OutputWriteError(self.path, exc, rows_written=self.rows_written)
            raise self.failure from exc
        finally:
            os.close(fd)
