"""Committing finished rows as they finish: a shard and its checkpoint file, in two phases.

A routing actor does not hand its rows to a later write stage (whose tasks Ray Data schedules
when it sees fit, often only once routing was dispatched in full): it commits them itself, a
few seconds after they finish (``commit_s``), whatever the job's size. A commit named ``NAME``:

1. writes ``NAME.pending.parquet`` in the checkpoint directory (the ids and facts of its rows);
2. writes the rows, byte for byte, to ``NAME.jsonl`` in the shard directory;
3. renames the pending file to ``NAME.parquet``: from then on the rows are done.

A process killed between 1 and 3 leaves a pending file; :func:`recover` (at the start of every
run) and :meth:`BatchCommits.earlier` (when Ray retries a block on another actor) delete that
shard and its pending file, so a row is in the output exactly when its id is committed. Names
are ``<block key>-<n>``: the key is a digest of the block's ids, so a retried block finds the
commits of its earlier attempt and routes only the rest.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from router.batch.ray_engine.blocks import FACTS, REQUEST_ID
from router.batch.ray_engine.layout import SHARD_SUFFIX, Layout, resolve
from router.logging import get_logger

__all__ = [
    "COMMITTED_SUFFIX",
    "PENDING_SUFFIX",
    "BatchCommits",
    "Committed",
    "block_key",
    "committed",
    "committed_batches",
    "committed_files",
    "delete_if_there",
    "recover",
]

log = get_logger(__name__)

PENDING_SUFFIX = ".pending.parquet"
COMMITTED_SUFFIX = ".parquet"

CHECKPOINT_SCHEMA = pa.schema(
    [
        pa.field(REQUEST_ID, pa.binary(), nullable=False),
        pa.field(FACTS, pa.binary(), nullable=False),
    ]
)


def block_key(request_ids: Sequence[bytes]) -> str:
    """A name for a block that a retry of the same block finds again (its ids' digest)."""
    digest = hashlib.blake2b(digest_size=12)
    for request_id in request_ids:
        digest.update(len(request_id).to_bytes(4, "little"))
        digest.update(request_id)
    return digest.hexdigest()


@dataclass(frozen=True)
class Committed:
    """Rows an earlier attempt at a block committed: their ids and encoded facts."""

    request_ids: list[bytes]
    facts: list[bytes]
    commits: int


class BatchCommits:
    """The commits of one job's blocks, made from whichever process routes them."""

    def __init__(self, layout: Layout) -> None:
        self._layout = layout

    def earlier(self, key: str) -> Committed:
        """What earlier attempts at block ``key`` committed; their uncommitted shards deleted.

        Probes ``key-0000``, ``key-0001``, ... until a name holds nothing: two look-ups for a
        block seen for the first time, whatever the size of the checkpoint directory.
        """
        fs, checkpoint = resolve(self._layout.checkpoint)
        request_ids: list[bytes] = []
        facts: list[bytes] = []
        n = 0
        while True:
            name = _name(key, n)
            done, pending = fs.get_file_info(
                [f"{checkpoint}/{name}{COMMITTED_SUFFIX}", f"{checkpoint}/{name}{PENDING_SUFFIX}"]
            )
            if done.type == pafs.FileType.File:
                table = pq.read_table(done.path, filesystem=fs)
                request_ids.extend(table[REQUEST_ID].to_pylist())
                facts.extend(table[FACTS].to_pylist())
                n += 1
                continue
            if pending.type == pafs.FileType.File:
                # An attempt commits one name at a time: a pending one was its last.
                self._roll_back(name)
            return Committed(request_ids, facts, n)

    def commit(self, key: str, n: int, rows: Sequence[tuple[bytes, bytes, bytes]]) -> None:
        """Make ``rows`` ((request_id, row line, facts) each) durable as commit ``n`` of ``key``."""
        fs, checkpoint = resolve(self._layout.checkpoint)
        shard_fs, shards = resolve(self._layout.shards)
        name = _name(key, n)
        ids = pa.table(
            {REQUEST_ID: [r[0] for r in rows], FACTS: [r[2] for r in rows]},
            schema=CHECKPOINT_SCHEMA,
        )
        pending = f"{checkpoint}/{name}{PENDING_SUFFIX}"
        pq.write_table(ids, pending, filesystem=fs)
        with shard_fs.open_output_stream(f"{shards}/{name}{SHARD_SUFFIX}") as out:
            out.write(b"".join(r[1] for r in rows))
        fs.move(pending, f"{checkpoint}/{name}{COMMITTED_SUFFIX}")

    def _roll_back(self, name: str) -> None:
        delete_if_there(self._layout.shards, f"{name}{SHARD_SUFFIX}")
        delete_if_there(self._layout.checkpoint, f"{name}{PENDING_SUFFIX}")


def recover(layout: Layout) -> int:
    """Roll back every commit a killed run left half made; how many there were.

    One listing of each directory: no file is read. A shard without a checkpoint file (a
    ``--retry-failed`` take-out killed midway, :mod:`.retry`) is deleted: its ids are not
    committed. The shards are listed first: a shard written meanwhile by a task that outlived
    its job already has its pending file when the checkpoint directory is listed.
    """
    shard_fs, shards = resolve(layout.shards)
    shard_names = [info.base_name for info in _listing(shard_fs, shards)]
    fs, checkpoint = resolve(layout.checkpoint)
    names = {info.base_name for info in _listing(fs, checkpoint)}
    rolled_back = 0
    for base in shard_names:
        name = base.removesuffix(SHARD_SUFFIX)
        if base.endswith(SHARD_SUFFIX) and not (
            f"{name}{COMMITTED_SUFFIX}" in names or f"{name}{PENDING_SUFFIX}" in names
        ):
            delete_if_there(layout.shards, base)
            rolled_back += 1
    for base in names:
        if not base.endswith(PENDING_SUFFIX):
            continue
        name = base.removesuffix(PENDING_SUFFIX)
        if f"{name}{COMMITTED_SUFFIX}" not in names:
            delete_if_there(layout.shards, f"{name}{SHARD_SUFFIX}")
        delete_if_there(layout.checkpoint, base)
        rolled_back += 1
    if rolled_back:
        log.warning("batch_commits_rolled_back", commits=rolled_back)
    return rolled_back


def committed(layout: Layout, *, columns: Sequence[str] = (REQUEST_ID,)) -> pa.Table:
    """The committed checkpoint rows of every run so far, read in parallel threads."""
    dataset = _committed_dataset(layout)
    if dataset is None:
        return CHECKPOINT_SCHEMA.empty_table().select(list(columns))
    return dataset.to_table(columns=list(columns), use_threads=True)


def committed_batches(
    layout: Layout, *, columns: Sequence[str] = (REQUEST_ID,)
) -> Iterator[pa.RecordBatch]:
    """The committed checkpoint rows, a batch at a time (files read ahead in threads): what
    goes over a whole job without holding it."""
    dataset = _committed_dataset(layout)
    if dataset is not None:
        yield from dataset.to_batches(columns=list(columns), use_threads=True)


def committed_files(layout: Layout) -> list[Any]:
    """The file infos of the committed checkpoint files, from one listing."""
    fs, checkpoint = resolve(layout.checkpoint)
    return [
        info
        for info in _listing(fs, checkpoint)
        if info.base_name.endswith(COMMITTED_SUFFIX) and not info.base_name.endswith(PENDING_SUFFIX)
    ]


def _committed_dataset(layout: Layout) -> Any:
    import pyarrow.dataset as pads

    fs, _ = resolve(layout.checkpoint)
    files = [info.path for info in committed_files(layout)]
    if not files:
        return None
    return pads.dataset(files, schema=CHECKPOINT_SCHEMA, format="parquet", filesystem=fs)


def _name(key: str, n: int) -> str:
    return f"{key}-{n:04d}"


def _listing(fs: Any, directory: str) -> Iterator[Any]:
    selector = pafs.FileSelector(directory, recursive=False, allow_not_found=True)
    return iter(fs.get_file_info(selector))


def delete_if_there(directory: str, base_name: str) -> None:
    """Delete ``base_name`` in ``directory`` when it is there."""
    fs, path = resolve(directory)
    with contextlib.suppress(FileNotFoundError):
        fs.delete_file(f"{path}/{base_name}")
