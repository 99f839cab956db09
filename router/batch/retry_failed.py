"""Re-run the failed rows of a finished output, each replaced in its place exactly once.

:func:`take_out_failed` rewrites the output without its failed rows (all of them, or only those
a transient provider failure ended: 429, 5xx, timeouts) and notes where each stood; a resumed
run then routes exactly those ids, their rows being absent, and appends their new rows;
:func:`put_back_in_place` moves each new row to where the failed one stood. Only ids the input
still holds are taken out, so a row is never lost to an id that would not run again. Each
rewrite goes to a temporary file beside the output that then replaces it, so a crash leaves the
old file or the new one whole; a run stopped midway leaves the rows it did not re-run absent, as
any interrupted run does, for ``--resume`` to finish.
"""

from __future__ import annotations

import os
from collections.abc import Container, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from router.text.jsonl import UnreadableLineError, loads, read_lines

__all__ = ["RetryPlan", "Which", "is_retryable", "put_back_in_place", "take_out_failed"]

Which = Literal["all", "transient"]

_TRANSIENT = "ProviderTransientError"


@dataclass
class RetryPlan:
    """The rows taken out: how many rows were kept, and where each taken id stood among them."""

    kept: int = 0
    positions: dict[str, int] = field(default_factory=dict)

    @property
    def taken(self) -> int:
        """How many failed rows were taken out to be run again."""
        return len(self.positions)


def is_retryable(row: Mapping[str, Any], which: Which) -> bool:
    """Whether a row failed (``which="all"``), or failed on a transient provider error."""
    if row.get("ok") is not False:
        return False
    if which == "all":
        return True
    error = row.get("error")
    if isinstance(error, Mapping) and error.get("type") == _TRANSIENT:
        return True
    providers = (row.get("fanout") or {}).get("providers")
    return isinstance(providers, Mapping) and any(
        isinstance(call, Mapping)
        and isinstance(call.get("error"), Mapping)
        and call["error"].get("type") == _TRANSIENT
        for call in providers.values()
    )


def take_out_failed(path: Path, input_ids: Container[str], which: Which) -> RetryPlan:
    """Rewrite ``path`` without the failed rows whose id ``input_ids`` holds; say where they
    stood. A last line without its newline (a killed run's) is dropped, as a resume would."""
    plan = RetryPlan()
    with path.open("rb") as source, _replacing(path) as sink:
        for line in read_lines(source):
            if not line.complete:
                break
            row = _row(line.data)
            request_id = row.get("request_id") if row is not None else None
            if (
                row is not None
                and isinstance(request_id, str)
                and request_id in input_ids
                and is_retryable(row, which)
            ):
                plan.positions.setdefault(request_id, plan.kept)
                continue
            sink.write(line.data + b"\n")
            plan.kept += 1
    return plan


def put_back_in_place(path: Path, plan: RetryPlan) -> int:
    """Move the rows a run appended for the taken ids to where the failed rows stood; return
    how many were put back. Rows of other ids the run appended stay at the end."""
    new_rows: dict[str, bytes] = {}
    others: list[bytes] = []
    with path.open("rb") as source:
        for number, line in enumerate(read_lines(source)):
            if number < plan.kept or not line.complete:
                continue  # a kept row, read in place below
            row = _row(line.data)
            request_id = row.get("request_id") if row is not None else None
            if isinstance(request_id, str) and request_id in plan.positions:
                new_rows.setdefault(request_id, line.data)
            else:
                others.append(line.data)
    by_position: dict[int, list[bytes]] = {}
    for request_id, position in plan.positions.items():
        if request_id in new_rows:
            by_position.setdefault(position, []).append(new_rows[request_id])
    with path.open("rb") as source, _replacing(path) as sink:
        kept = read_lines(source)
        for index in range(plan.kept + 1):
            for data in by_position.get(index, ()):
                sink.write(data + b"\n")
            if index < plan.kept:
                sink.write(next(kept).data + b"\n")
        for data in others:
            sink.write(data + b"\n")
    return len(new_rows)


def _row(data: bytes) -> dict[str, Any] | None:
    try:
        row = loads(data)
    except UnreadableLineError:
        return None
    return row if isinstance(row, dict) else None


@contextmanager
def _replacing(path: Path) -> Iterator[IO[bytes]]:
    """A file that replaces ``path`` whole when the block ends without an error."""
    temporary = path.with_name(f".{path.name}.retry-failed")
    try:
        with temporary.open("wb") as sink:
            yield sink
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
