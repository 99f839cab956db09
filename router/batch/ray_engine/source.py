"""The input of a Ray batch job: one JSONL file, read through the shared batch input reader.

``ray.data.read_json`` cannot be used: one malformed line fails its whole read task (and so the
job), and Arrow's schema inference rejects lines whose fields differ in type. Instead one read
task streams the file (a local path or an object-store URI, as every Ray Data reader takes it)
line by line and hands each line to :func:`router.batch.input.parse_line`, the local engine's
reader, and the items in file order to one :class:`router.batch.input.UniqueIds`: ids are
derived, bad lines become error rows and repeated ids are renamed exactly as there. The
``request_id`` column leaves the read itself, which is what Ray Data's checkpoint filter needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa
from ray.data.block import Block
from ray.data.datasource import FileBasedDatasource

from router.batch.input import BatchItem, UniqueIds, line_request_id, parse_line
from router.batch.output import error_row, line_bytes, row_text
from router.batch.ray_engine.blocks import INPUT_SCHEMA, encode_facts, encode_id, encode_request
from router.batch.ray_engine.layout import input_lines
from router.batch.stats import row_facts
from router.text.redaction import register_secret

__all__ = ["RequestLines", "input_blocks"]

# Rows handed to Ray at a time while reading; Ray then cuts what it read into the job's blocks.
_ROWS_PER_CHUNK = 1024


class RequestLines(FileBasedDatasource):
    """A JSONL file of requests as rows of :data:`.blocks.INPUT_SCHEMA` (see :func:`input_blocks`).

    ``secrets`` (the settings' keys) are redacted from the error rows of bad lines, as the local
    engine's writer redacts every row.
    """

    def __init__(self, path: str, *, secrets: Sequence[str] = ()) -> None:
        super().__init__(path)
        self._secrets = tuple(secrets)

    def _read_stream(self, f: pa.NativeFile, path: str) -> Iterator[Block]:
        yield from input_blocks(f, lambda: self._all_ids(path), secrets=self._secrets)

    def _all_ids(self, path: str) -> Iterator[str]:
        """Every id of the input, read again: only a file with a repeated id needs them."""
        with self._filesystem.open_input_stream(path) as stream:
            yield from (line_request_id(line) for line in input_lines(stream))


def input_blocks(
    stream: Any, all_ids: Callable[[], Iterable[str]], *, secrets: Sequence[str] = ()
) -> Iterator[pa.Table]:
    """The input's rows, in file order: each non-blank line through ``parse_line``, the items
    through one ``UniqueIds`` (``all_ids`` gives every id of the input, when one repeats)."""
    for secret in secrets:
        register_secret(secret)
    rows: list[dict[str, Any]] = []
    with UniqueIds(all_ids) as ids:
        for line in input_lines(stream):
            rows.append(_columns(ids.assign(parse_line(line))))
            if len(rows) == _ROWS_PER_CHUNK:
                yield pa.Table.from_pylist(rows, schema=INPUT_SCHEMA)
                rows = []
    if rows:
        yield pa.Table.from_pylist(rows, schema=INPUT_SCHEMA)


def _columns(item: BatchItem) -> dict[str, Any]:
    if item.error is None and item.request is not None:
        request, fanout = encode_request(item.request)
        return {
            "request_id": encode_id(item.request_id),
            "line": item.line,
            "request": request,
            "fanout": fanout,
        }
    assert item.error is not None  # the reader gives every line a request or an error
    row = error_row(item.line, item.request_id, item.error)
    return {
        "request_id": encode_id(item.request_id),
        "line": item.line,
        "row": line_bytes(row_text(row)),
        "facts": encode_facts(row_facts(error=item.error)),
    }
