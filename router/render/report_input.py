"""The files a report reads, as one stream of rows: each an answer or a failure with its reason.

Accepted: batch output (JSON lines, fan-out rows included), a saved ``route --json-output`` or
``extract --json`` (one LLMResponse, pretty or on one line), a ``compare --json`` file, and the
JSON lines of ``route --stream --json-output`` (its ``completed`` event). Every
``schema_version`` up to this release's (:mod:`router.schema`; none is version 1) is read:
fields are taken with ``.get`` and what is missing is shown as missing. A record of a newer major
version is refused (``SchemaVersionError``, saying which line), not misread. Lines that are not
JSON, or JSON of no known shape, are counted, not fatal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from router.schema import check_schema_version

__all__ = ["InputCounts", "ReportRow", "iter_report_rows", "rows_from_record"]


@dataclass(frozen=True)
class ReportRow:
    """One answer (``response``, the serialised LLMResponse) or one failure (``error``)."""

    request_id: str | None
    vendor: str | None
    model: str | None
    ok: bool
    response: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    line: int | None = None


@dataclass
class InputCounts:
    """What reading skipped: lines that were not JSON, and JSON of no known shape."""

    unreadable_lines: int = 0
    unknown_records: int = 0
    kinds: set[str] = field(default_factory=set)


def iter_report_rows(path: Path, counts: InputCounts | None = None) -> Iterator[ReportRow]:
    """The rows of ``path``, read lazily (a batch output of 10,000 rows is never held whole)."""
    counts = counts if counts is not None else InputCounts()
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        first = next((line for line in handle if line.strip()), "")
        try:
            json.loads(first)
        except json.JSONDecodeError:
            # Not one record per line: one JSON document (pretty-printed route or compare).
            handle.seek(0)
            try:
                document = json.load(handle)
            except json.JSONDecodeError:
                pass
            else:
                yield from _rows_counted(document, None, counts)
                return
    # JSON lines, or a file whose first line is broken: every line on its own.
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError:
                counts.unreadable_lines += 1
                continue
            yield from _rows_counted(record, number, counts)


def _rows_counted(record: Any, line: int | None, counts: InputCounts) -> Iterator[ReportRow]:
    kind, rows = rows_from_record(record, line)
    if kind is None:
        counts.unknown_records += 1
    else:
        counts.kinds.add(kind)
    yield from rows


def rows_from_record(record: Any, line: int | None = None) -> tuple[str | None, list[ReportRow]]:
    """The kind of one JSON record ("batch", "compare", "response", ...) and its rows."""
    if not isinstance(record, dict):
        return None, []
    where = "the record" if line is None else f"line {line}"
    check_schema_version(record, where)
    if isinstance(record.get("response"), dict):  # a stream's completed event
        check_schema_version(record["response"], where)
    if isinstance(record.get("providers"), dict) and "aggregate" in record:
        return "compare", list(_provider_rows(record["providers"], None, line))
    if "ok" in record and isinstance(record.get("fanout"), dict):
        providers = record["fanout"].get("providers")
        request_id = _text(record.get("request_id"))
        return "batch", list(_provider_rows(providers or {}, request_id, line))
    if "ok" in record and ("response" in record or "error" in record):
        return "batch", [_batch_row(record, line)]
    if record.get("event") == "completed" and isinstance(record.get("response"), dict):
        return "stream", [_response_row(record["response"], line)]
    if isinstance(record.get("event"), str):
        return "stream", []
    if isinstance(record.get("content"), str) and "vendor" in record:
        return "response", [_response_row(record, line)]
    if isinstance(record.get("error"), dict):
        return "error", [_error_row(record["error"], None, None, line)]
    return None, []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _response_row(response: Mapping[str, Any], line: int | None) -> ReportRow:
    return ReportRow(
        request_id=_text(response.get("request_id")),
        vendor=_text(response.get("vendor")),
        model=_text(response.get("model")),
        ok=True,
        response=response,
        line=line,
    )


def _error_row(
    error: Mapping[str, Any],
    request_id: str | None,
    request: Mapping[str, Any] | None,
    line: int | None,
) -> ReportRow:
    request = request or {}
    return ReportRow(
        request_id=request_id or _text(error.get("request_id")),
        vendor=_text(error.get("vendor")) or _text(request.get("vendor")),
        model=_text(error.get("model")) or _text(request.get("model")),
        ok=False,
        error=error,
        line=line,
    )


def _batch_row(record: Mapping[str, Any], line: int | None) -> ReportRow:
    request_id = _text(record.get("request_id"))
    request = record.get("request") if isinstance(record.get("request"), dict) else None
    number = record.get("line") if isinstance(record.get("line"), int) else line
    response = record.get("response")
    if record.get("ok") and isinstance(response, dict):
        row = _response_row(response, number)
        return ReportRow(
            request_id=request_id or row.request_id,
            vendor=row.vendor or _text((request or {}).get("vendor")),
            model=row.model,
            ok=True,
            response=response,
            line=number,
        )
    error = record.get("error")
    return _error_row(error if isinstance(error, dict) else {}, request_id, request, number)


def _provider_rows(
    providers: Mapping[str, Any], request_id: str | None, line: int | None
) -> Iterable[ReportRow]:
    for vendor, outcome in providers.items():
        if not isinstance(outcome, dict):
            continue
        name = f"{request_id}/{vendor}" if request_id else str(vendor)
        response = outcome.get("response")
        if outcome.get("ok") and isinstance(response, dict):
            row = _response_row(response, line)
            yield ReportRow(name, row.vendor or str(vendor), row.model, True, response, None, line)
        else:
            error = outcome.get("error")
            fields = error if isinstance(error, dict) else {}
            yield _error_row({"vendor": vendor, **fields}, name, None, line)
