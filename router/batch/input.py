"""Streaming reader of a batch input file: one ``LLMRequest`` per JSONL line.

The file is read line by line, never whole. Each non-blank line becomes either a request to run or,
when it cannot be one, an error row naming the line and the problem; blank lines are skipped.
A line without ``request_id`` gets one derived from its line number and content, so a resumed run
derives the same id again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.errors import RequestValidationError
from router.types import LLMRequest

__all__ = ["BatchItem", "count_requests", "derive_request_id", "read_requests"]


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One input line: a request to run, or the error that stops it from being one."""

    line: int
    request_id: str
    request: LLMRequest | None = None
    error: RequestValidationError | None = None


def derive_request_id(line_number: int, raw_line: str) -> str:
    """A stable id for a line that has none: its number and a hash of its content."""
    digest = hashlib.sha256(raw_line.strip().encode("utf-8")).hexdigest()[:12]
    return f"line{line_number}-{digest}"


def count_requests(path: Path) -> int:
    """Count the non-blank lines of ``path``, streaming (for the progress total)."""
    with path.open("rb") as handle:
        return sum(1 for raw_line in handle if raw_line.strip())


def read_requests(path: Path) -> Iterator[BatchItem]:
    """Yield one item per non-blank line, in file order."""
    first_line_of: dict[str, int] = {}
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for line_number, raw_line in enumerate(handle, start=1):
            if not raw_line.strip():
                continue
            item = _parse_line(line_number, raw_line)
            earlier = first_line_of.get(item.request_id)
            if earlier is not None:
                item = _duplicate(item, earlier)
            else:
                first_line_of[item.request_id] = line_number
            yield item


def _parse_line(line_number: int, raw_line: str) -> BatchItem:
    derived = derive_request_id(line_number, raw_line)
    try:
        data: Any = json.loads(raw_line)
    except json.JSONDecodeError as exc:
        return BatchItem(
            line=line_number,
            request_id=derived,
            error=_line_error(
                line_number, f"not valid JSON ({exc.msg} at column {exc.colno})", derived
            ),
        )
    given_id = data.get("request_id") if isinstance(data, dict) else None
    request_id = given_id if isinstance(given_id, str) and given_id.strip() else derived
    if isinstance(data, dict) and data.get("request_id") is None:
        data = {**data, "request_id": derived}
    try:
        request = LLMRequest.model_validate(data)
    except RequestValidationError as exc:
        return BatchItem(
            line=line_number,
            request_id=request_id,
            error=_line_error(line_number, exc.message, request_id, field=exc.field),
        )
    return BatchItem(line=line_number, request_id=request_id, request=request)


def _duplicate(item: BatchItem, earlier_line: int) -> BatchItem:
    """A repeated request_id becomes an error row with an id of its own, so no id appears twice."""
    own_id = f"{item.request_id}#line{item.line}"
    return BatchItem(
        line=item.line,
        request_id=own_id,
        error=_line_error(
            item.line,
            f"request_id {item.request_id!r} already used on line {earlier_line}",
            own_id,
            field="request_id",
            reason="duplicate_request_id",
        ),
    )


def _line_error(
    line_number: int,
    problem: str,
    request_id: str,
    *,
    field: str | None = None,
    reason: str = "invalid_request",
) -> RequestValidationError:
    return RequestValidationError(
        f"line {line_number}: {problem}", field=field, request_id=request_id, reason=reason
    )
