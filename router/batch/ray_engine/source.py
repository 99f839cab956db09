"""The input of a Ray batch job: one JSONL file, read through the shared batch input reader.

``ray.data.read_json`` cannot be used: one malformed line fails its whole read task (and so the
job), and Arrow's schema inference rejects lines whose fields differ in type. Instead one read
task streams the file (a local path or an object-store URI, as every Ray Data reader takes it)
line by line and hands each line to :func:`router.batch.input.parse_line`, the local engine's
reader, and the items in file order to one :class:`router.batch.input.UniqueIds`: ids are
derived, bad lines become error rows and repeated ids are renamed exactly as there.

The read task also skips what earlier runs committed: it reads the committed ids of the
checkpoint once (a batch at a time, files in threads; see :mod:`.commits`) into an on-disk
index (:class:`CommittedIds`) and leaves their lines out, so a resumed run's blocks are as full
as a first run's, and no filter stage runs between reading and routing. It yields blocks of the
job's rows per block, and tells the job's progress actor how many lines it read and skipped
(the driver never reads the input).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa
from ray.data.block import Block
from ray.data.datasource import FileBasedDatasource

from router.batch.input import BatchItem, UniqueIds, line_request_id, parse_line
from router.batch.output import error_row, line_bytes, row_text
from router.batch.ray_engine.blocks import (
    INPUT_SCHEMA,
    REQUEST_ID,
    decode_id,
    encode_facts,
    encode_id,
    encode_request,
)
from router.batch.ray_engine.commits import committed_batches
from router.batch.ray_engine.layout import Layout, input_lines
from router.batch.seen_ids import SeenIds
from router.batch.stats import row_facts
from router.text.redaction import register_secret

__all__ = ["CommittedIds", "RequestLines", "input_blocks"]

_ROWS_PER_BLOCK = 1024

ReadCounter = Callable[[int, int], None]


class RequestLines(FileBasedDatasource):
    """A JSONL file of requests as rows of :data:`.blocks.INPUT_SCHEMA` (see :func:`input_blocks`).

    ``secrets`` (the settings' keys) are redacted from the error rows of bad lines, as the local
    engine's writer redacts every row.
    """

    def __init__(
        self,
        path: str,
        layout: Layout,
        *,
        rows_per_block: int,
        progress: Any | None = None,
        secrets: Sequence[str] = (),
    ) -> None:
        super().__init__(path)
        self._layout = layout
        self._rows_per_block = rows_per_block
        self._progress = progress
        self._secrets = tuple(secrets)

    def _read_stream(self, f: pa.NativeFile, path: str) -> Iterator[Block]:
        with CommittedIds(self._layout) as done:
            yield from input_blocks(
                f,
                lambda: self._all_ids(path),
                skip=done,
                rows_per_block=self._rows_per_block,
                on_read=self._count,
                secrets=self._secrets,
            )

    def _count(self, lines: int, skipped: int) -> None:
        if self._progress is not None:
            import ray

            # Waited for: the job's totals must hold these lines once the read task has ended.
            ray.get(self._progress.read.remote(lines, skipped))

    def _all_ids(self, path: str) -> Iterator[str]:
        """Every id of the input, read again: only a file with a repeated id needs them."""
        with self._filesystem.open_input_stream(path) as stream:
            yield from (line_request_id(line) for line in input_lines(stream))


class CommittedIds:
    """The ids committed by every run so far (encoded, as the blocks hold them), kept on disk
    (:class:`router.batch.seen_ids.SeenIds`): the read task's memory stays flat however many
    rows earlier runs committed. The checkpoint is read a batch at a time, its files in threads.
    """

    def __init__(self, layout: Layout) -> None:
        self._ids = SeenIds()
        for batch in committed_batches(layout):
            self._ids.update(decode_id(i) for i in batch.column(REQUEST_ID).to_pylist())

    def __contains__(self, request_id: object) -> bool:
        return isinstance(request_id, bytes) and decode_id(request_id) in self._ids

    def __enter__(self) -> CommittedIds:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._ids.close()


def input_blocks(
    stream: Any,
    all_ids: Callable[[], Iterable[str]],
    *,
    skip: Container[bytes] = frozenset(),
    rows_per_block: int = _ROWS_PER_BLOCK,
    on_read: ReadCounter | None = None,
    secrets: Sequence[str] = (),
) -> Iterator[pa.Table]:
    """The input's rows, in file order and blocks of ``rows_per_block``: each non-blank line
    through ``parse_line``, the items through one ``UniqueIds`` (``all_ids`` gives every id of
    the input, when one repeats); lines whose id is in ``skip`` (encoded) are counted, not
    yielded. ``on_read(lines, skipped)`` hears of the lines read since it was last called."""
    for secret in secrets:
        register_secret(secret)
    rows: list[dict[str, Any]] = []
    lines = skipped = 0
    with UniqueIds(all_ids) as ids:
        for line in input_lines(stream):
            lines += 1
            columns = _columns(ids.assign(parse_line(line)))
            if columns[REQUEST_ID] in skip:
                skipped += 1
                continue
            rows.append(columns)
            if len(rows) == rows_per_block:
                if on_read is not None:
                    on_read(lines, skipped)
                    lines = skipped = 0
                yield pa.Table.from_pylist(rows, schema=INPUT_SCHEMA)
                rows = []
    if on_read is not None:
        on_read(lines, skipped)
    if rows:
        yield pa.Table.from_pylist(rows, schema=INPUT_SCHEMA)


def _columns(item: BatchItem) -> dict[str, Any]:
    if item.error is None and item.request is not None:
        request, fanout = encode_request(item.request)
        return {
            REQUEST_ID: encode_id(item.request_id),
            "line": item.line,
            "request": request,
            "fanout": fanout,
        }
    assert item.error is not None  # the reader gives every line a request or an error
    row = error_row(item.line, item.request_id, item.error)
    return {
        REQUEST_ID: encode_id(item.request_id),
        "line": item.line,
        "row": line_bytes(row_text(row)),
        "facts": encode_facts(row_facts(error=item.error)),
    }
