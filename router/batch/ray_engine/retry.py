"""``--retry-failed`` on the Ray engine: take the failed rows out of a job's commits.

A Ray job's rows live in commits (a shard and its checkpoint file, :mod:`.commits`), not in one
file in input order. Taking a failed row out means making its id uncommitted, so that a resumed
run routes it again and commits its new row. Each commit holding a row to take out is replaced:

1. its other rows are committed again under a new name (the digest of their ids, so a rerun of
   an interrupted take-out finds the same name and writes the same commit);
2. its checkpoint file is deleted: its ids are no longer committed;
3. its shard is deleted.

Killed after 1, the rows kept are committed twice (the merge and the totals take each id once)
and the failed ones still stand: running ``--retry-failed`` again finishes the take-out. Killed
after 2, the shard is left without a checkpoint file, and the next run's :func:`.commits.recover`
deletes it. A row is in the output exactly when its id is committed, as for any commit.

The merged file (``-o OUT.jsonl``) is written again from the shards when the resumed run ends,
in shard order: the new rows stand among the shards, not where the failed ones stood.
"""

from __future__ import annotations

import io
from collections.abc import Container, Iterator
from dataclasses import dataclass

import pyarrow.parquet as pq

from router.batch.input import UniqueIds, line_request_id, parse_line
from router.batch.ray_engine.blocks import FACTS, REQUEST_ID, decode_id
from router.batch.ray_engine.commits import (
    COMMITTED_SUFFIX,
    BatchCommits,
    block_key,
    committed_batches,
    committed_files,
    delete_if_there,
)
from router.batch.ray_engine.layout import SHARD_SUFFIX, Layout, input_lines, resolve
from router.batch.retry_failed import Which, is_retryable
from router.batch.seen_ids import SeenIds
from router.logging import get_logger
from router.text.jsonl import UnreadableLineError, loads, read_lines

__all__ = ["TakenOut", "input_ids", "take_out_failed"]

log = get_logger(__name__)


@dataclass
class TakenOut:
    """The failed rows taken out of a job's commits: their ids (on disk), and how many."""

    ids: SeenIds
    taken: int = 0

    def rerun(self, layout: Layout) -> int:
        """How many of the ids taken out are committed again (a resumed run routed them)."""
        return sum(1 for request_id in _committed_ids(layout) if decode_id(request_id) in self.ids)

    def close(self) -> None:
        self.ids.close()


def take_out_failed(layout: Layout, input_ids: Container[str], which: Which) -> TakenOut:
    """Uncommit every failed row (``which``: all, or transient failures) whose id the input
    still holds; the ids taken out."""
    taken = TakenOut(SeenIds())
    commits = BatchCommits(layout)
    fs, checkpoint = resolve(layout.checkpoint)
    shard_fs, shards = resolve(layout.shards)
    for info in committed_files(layout):
        name = info.base_name.removesuffix(COMMITTED_SUFFIX)
        table = pq.read_table(info.path, filesystem=fs)
        with shard_fs.open_input_stream(f"{shards}/{name}{SHARD_SUFFIX}") as stream:
            lines = [line.data for line in read_lines(io.BufferedReader(stream)) if line.complete]
        if len(lines) != table.num_rows:
            log.warning("batch_retry_commit_skipped", commit=name, reason="rows and ids differ")
            continue
        kept: list[tuple[bytes, bytes, bytes]] = []
        failed: list[str] = []
        for request_id, facts, line in zip(
            table[REQUEST_ID].to_pylist(), table[FACTS].to_pylist(), lines, strict=True
        ):
            text_id = decode_id(request_id)
            if text_id in input_ids and _retryable(line, which):
                failed.append(text_id)
            else:
                kept.append((request_id, line + b"\n", facts))
        if not failed:
            continue
        if kept:
            commits.commit(block_key([row[0] for row in kept]), 0, kept)
        fs.delete_file(info.path)  # from here on the failed ids are not committed
        delete_if_there(layout.shards, f"{name}{SHARD_SUFFIX}")
        taken.ids.update(failed)
        taken.taken += len(failed)
    log.info("batch_retry_taken_out", rows=taken.taken, checkpoint=checkpoint)
    return taken


def input_ids(source: str) -> Iterator[str]:
    """The request_id of every line of ``source`` (a path or URI), as the job assigns them."""
    fs, path = resolve(source)

    def every_id() -> Iterator[str]:
        with fs.open_input_stream(path) as stream:
            yield from (line_request_id(line) for line in input_lines(stream))

    with fs.open_input_stream(path) as stream, UniqueIds(every_id) as ids:
        for line in input_lines(stream):
            yield ids.assign(parse_line(line)).request_id


def _retryable(line: bytes, which: Which) -> bool:
    try:
        row = loads(line)
    except UnreadableLineError:
        return False
    return isinstance(row, dict) and is_retryable(row, which)


def _committed_ids(layout: Layout) -> Iterator[bytes]:
    for batch in committed_batches(layout):
        yield from batch.column(REQUEST_ID).to_pylist()
