"""The batch output file: one JSON line per request, written whole and flushed as it arrives.

A line is written with a single ``write`` of the full text plus newline and flushed at once, so a
killed run leaves at most one partial last line. Resuming reads the ids already present, cuts such
a partial line off, and appends after the last complete one: every request_id ends up exactly once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from router.batch.stats import RowFacts, row_facts
from router.errors import RouterError
from router.jsonl import UnreadableLineError, loads, read_lines
from router.redaction import redact_text
from router.types import LLMRequest, LLMResponse

if TYPE_CHECKING:
    from router.unified_llm_adapter import UnifiedLLMAdapter

__all__ = [
    "ResultWriter",
    "answer_row",
    "error_row",
    "existing_request_ids",
    "row_text",
    "success_row",
]

log = structlog.get_logger(__name__)


def success_row(line: int, request: LLMRequest, response: LLMResponse) -> dict[str, Any]:
    """The output row of a request that was answered (and passed validation)."""
    return {
        "request_id": request.request_id,
        "ok": True,
        "line": line,
        "request": _request_summary(request),
        "response": response.model_dump(mode="json"),
    }


def error_row(
    line: int, request_id: str, error: RouterError, request: LLMRequest | None = None
) -> dict[str, Any]:
    """The output row of a request that failed: its error, typed, with the reason and status."""
    return {
        "request_id": request_id,
        "ok": False,
        "line": line,
        "request": _request_summary(request) if request is not None else None,
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
        failure = RouterError(f"unexpected {type(exc).__name__}: {exc}", reason="unexpected_error")
    return row_text(error_row(line, request_id, failure, request)), row_facts(error=failure)


def row_text(row: Mapping[str, Any]) -> str:
    """A row as the one line of JSON the output file holds (without the newline)."""
    return json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def _request_summary(request: LLMRequest) -> dict[str, Any]:
    """What a report needs to group by, without repeating the prompt."""
    location = request.user_location
    return {
        "vendor": request.vendor,
        "model": request.model,
        "grounded": request.grounded,
        "grounding_mode": request.grounding_mode,
        "user_location": location.model_dump(exclude_none=True) if location else None,
    }


def existing_request_ids(path: Path) -> tuple[set[str], int]:
    """Ids of the complete rows in ``path`` and the byte length those rows occupy.

    A last line without its newline is not complete: the returned length stops before it so the
    writer can cut it off. A complete line that is not a row with a request_id (whatever it
    holds) is kept and names no id.
    """
    ids: set[str] = set()
    complete_length = 0
    if not path.exists():
        return ids, 0
    with path.open("rb") as handle:
        for line in read_lines(handle):
            if not line.complete:
                break
            request_id = _row_id(line.data)
            if request_id is not None:
                ids.add(request_id)
            complete_length = line.end
    return ids, complete_length


def _row_id(data: bytes) -> str | None:
    try:
        row = loads(data)
    except UnreadableLineError:
        return None
    request_id = row.get("request_id") if isinstance(row, dict) else None
    return request_id if isinstance(request_id, str) else None


class ResultWriter:
    """Appends rows to the output file; the only writer of that file."""

    def __init__(self, path: Path, *, keep_bytes: int = 0) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Open for update without truncating, then cut to the complete rows (0 for a fresh run).
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        self._handle = os.fdopen(fd, "r+b")
        self._handle.truncate(keep_bytes)
        self._handle.seek(keep_bytes)
        self.rows_written = 0

    def write(self, row: Mapping[str, Any]) -> None:
        """Write one row as one line, and flush it to the operating system at once."""
        self.write_line(row_text(row))

    def write_line(self, line: str) -> None:
        """Write an already serialised row (from a worker process)."""
        # A configured secret a provider quoted back never reaches the file, in any encoding.
        line = redact_text(line, shapes=False)
        # A lone surrogate (from a provider's "\ud800" escape) cannot be UTF-8: written as the
        # JSON escape it came as. JSON text holds non-ASCII only inside strings, so it is valid.
        self._handle.write(line.encode("utf-8", "backslashreplace") + b"\n")
        self._handle.flush()
        self.rows_written += 1

    def close(self) -> None:
        """Flush to disk and close."""
        if self._handle.closed:
            return
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._handle.close()
