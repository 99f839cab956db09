"""The batch input: each non-blank line of a JSONL file becomes exactly one item, whatever it is.

An item is a request to run (one request, or with ``"vendors": [...]`` one question for several
providers: :mod:`router.batch.fanout_lines`) or, when the line cannot be one, the error that
stops it, which becomes the line's error row. :func:`parse_line` makes the item of one line and
never raises: not JSON, nested thousands deep, a number of thousands of digits, not UTF-8, not
an object, not a valid request, a bad vendors list, a request that cannot be serialised, a line
longer than :data:`MAX_LINE_BYTES`: each is one error row naming the line and the problem.
Blank lines are skipped. An engine that reads lines its own way calls :func:`parse_line` per
line and passes the items, in input order, through one :class:`UniqueIds` (with
:func:`line_request_id` giving the ids it must avoid).

Every item has a request_id, and no two items of a file share one:

- a line without ``request_id``, or with a blank one, gets one derived from its number and
  content (:func:`derive_request_id`), so a resumed run derives the same id again;
- a line repeating an earlier line's id becomes an error row of its own, renamed
  ``<id>#line<N>`` (N its line number); when the file holds that name as a real id too, a
  suffix ``.2``, ``.3``, ... is added until the name is free, so a renamed row never takes the
  id of another line. Ids depend only on the file, so every run of it gives the same ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.batch.fanout_lines import BatchRequest, fanout_request, is_fanout_line
from router.batch.seen_ids import SeenIds
from router.errors import RequestValidationError
from router.text.jsonl import Line, UnreadableLineError, loads, read_lines
from router.types import LLMRequest

__all__ = [
    "MAX_LINE_BYTES",
    "BatchInput",
    "BatchItem",
    "UniqueIds",
    "derive_request_id",
    "line_request_id",
    "parse_line",
]

MAX_LINE_BYTES = 16 * 1024 * 1024
"""A longer input line is an error row, read past in bounded chunks rather than held."""


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One input line: a request to run (one provider's or a fan-out), or the error that stops
    it from being one."""

    line: int
    request_id: str
    request: BatchRequest | None = None
    error: RequestValidationError | None = None


def derive_request_id(line_number: int, raw_line: str) -> str:
    """A stable id for a line that has none: its number and a hash of its content."""
    digest = hashlib.sha256(raw_line.strip().encode("utf-8")).hexdigest()[:12]
    return f"line{line_number}-{digest}"


def parse_line(line: Line) -> BatchItem:
    """The item of one non-blank input line; never raises, whatever the line holds."""
    try:
        return _parse(line)
    except Exception as exc:  # a line must cost one row, never the run
        request_id = _derived_id(line)
        problem = f"could not be read ({type(exc).__name__})"
        return _error_item(line.number, request_id, problem, reason="unexpected_error")


def _parse(line: Line) -> BatchItem:
    if line.cut:
        problem = f"longer than {MAX_LINE_BYTES} bytes ({line.size} bytes)"
        return _error_item(line.number, _derived_id(line), problem)
    try:
        data = loads(_text(line))
    except UnreadableLineError as exc:
        return _error_item(line.number, _derived_id(line), str(exc))
    request_id = _id_of(data, line)
    if isinstance(data, dict) and _absent(data.get("request_id")):
        data = {**data, "request_id": request_id}  # the request carries the derived id too
    if is_fanout_line(data):
        try:
            fanout = fanout_request(data)
        except RequestValidationError as exc:
            return _error_item(line.number, request_id, exc.message, field=exc.field)
        return BatchItem(line=line.number, request_id=request_id, request=fanout)
    try:
        request = LLMRequest.model_validate(data)
    except RequestValidationError as exc:
        return _error_item(line.number, request_id, exc.message, field=exc.field)
    try:
        # Worker processes receive the request as JSON, and the row echoes it: a request that
        # cannot be serialised (pydantic stops at 255 levels of nesting) is refused here.
        request.model_dump_json()
    except Exception as exc:
        problem = f"the request cannot be serialised as JSON ({type(exc).__name__})"
        return _error_item(line.number, request_id, problem)
    return BatchItem(line=line.number, request_id=request_id, request=request)


def _text(line: Line) -> str:
    # Bytes that are not UTF-8 become U+FFFD, as they always have: the line stays readable.
    return line.data.decode("utf-8", errors="replace")


def _derived_id(line: Line) -> str:
    return derive_request_id(line.number, _text(line))


def _absent(given: Any) -> bool:
    """No id, or a blank one: a whitespace id would be a different row on every resume."""
    return given is None or (isinstance(given, str) and not given.strip())


def _id_of(data: Any, line: Line) -> str:
    """The line's request_id: its own when it gave a non-blank string, else the derived one
    (hashed only then: most lines name their id).

    A given id of another type keeps the derived one here; validation then rejects the line.
    """
    given = data.get("request_id") if isinstance(data, dict) else None
    return given if isinstance(given, str) and given.strip() else _derived_id(line)


def _error_item(
    line_number: int,
    request_id: str,
    problem: str,
    *,
    field: str | None = None,
    reason: str = "invalid_request",
) -> BatchItem:
    error = RequestValidationError(
        f"line {line_number}: {problem}", field=field, request_id=request_id, reason=reason
    )
    return BatchItem(line=line_number, request_id=request_id, error=error)


def line_request_id(line: Line) -> str:
    """The request_id :func:`parse_line` gives this line, without validating the request."""
    if line.cut:
        return _derived_id(line)
    try:
        data = loads(_text(line))
    except UnreadableLineError:
        return _derived_id(line)
    return _id_of(data, line)


class UniqueIds:
    """Renames the items whose id an earlier item holds, never to an id the input holds.

    Items must come in input order. ``all_ids`` gives every id of the input (as
    :func:`parse_line` gives them), one at a time; it is called once, at the first duplicate, so
    an input without duplicates is never read for it. The ids are kept on disk
    (:class:`router.batch.seen_ids.SeenIds`), so memory does not grow with the input:
    :meth:`close` (or leaving a ``with`` block) drops them.
    """

    def __init__(self, all_ids: Callable[[], Iterable[str]]) -> None:
        self._all_ids = all_ids
        self._taken: SeenIds | None = None
        # Every id met so far, and every name a renamed duplicate got, with its line.
        self._seen = SeenIds()

    def assign(self, item: BatchItem) -> BatchItem:
        """The item itself, or, for a repeated id, its duplicate error row under a free id."""
        first = self._seen.first_line(item.request_id, item.line)
        if first == item.line:
            return item
        own_id = self._free_name(item.request_id, item.line)
        error = RequestValidationError(
            f"line {item.line}: request_id {item.request_id!r} already used on line {first}",
            field="request_id",
            request_id=own_id,
            reason="duplicate_request_id",
        )
        return BatchItem(line=item.line, request_id=own_id, error=error)

    def _free_name(self, request_id: str, line_number: int) -> str:
        if self._taken is None:
            self._taken = SeenIds()
            self._taken.update(self._all_ids())
        base = f"{request_id}#line{line_number}"
        name, suffix = base, 1
        while name in self._taken or name in self._seen:
            suffix += 1
            name = f"{base}.{suffix}"
        self._seen.first_line(name, line_number)
        return name

    def close(self) -> None:
        """Drop the ids kept."""
        self._seen.close()
        if self._taken is not None:
            self._taken.close()

    def __enter__(self) -> UniqueIds:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class BatchInput:
    """A batch input file: its number of requests, and its items in order (see the module doc).

    Iterating reads the file one line at a time. Only a file with a repeated id is read a second
    time, in full, for the ids a renamed duplicate must avoid.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.total = sum(1 for _ in _non_blank_lines(path))

    def __iter__(self) -> Iterator[BatchItem]:
        with UniqueIds(self._all_ids) as ids:
            for line in _non_blank_lines(self.path):
                yield ids.assign(parse_line(line))

    def _all_ids(self) -> Iterator[str]:
        return (line_request_id(line) for line in _non_blank_lines(self.path))


def _non_blank_lines(path: Path) -> Iterator[Line]:
    with path.open("rb") as handle:
        yield from (line for line in read_lines(handle, max_bytes=MAX_LINE_BYTES) if not line.blank)
