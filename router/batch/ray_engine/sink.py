"""The output of a Ray batch job: a directory of JSONL shards, one file per written block.

Each shard holds the rows' output lines byte for byte (a Ray write task writes a file, Ray Data's
two-phase checkpoint commit records its request_ids). ``write_json`` is not used because it
re-serialises rows through Arrow and pandas: keys missing from a row would come back as nulls
and text would be escaped differently, so a row would no longer be the local engine's row.

Every write task also counts its rows (:class:`router.batch.stats.BatchStats`): the counts go to
the job's progress actor as they are written, and back to the driver with the task's result, so
the summary counts exactly the rows that reached the output.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from ray.data.block import Block, BlockAccessor
from ray.data.datasource import BlockBasedFileDatasink, WriteResult

from router.batch.ray_engine.blocks import FACTS, ROW, decode_facts
from router.batch.ray_engine.layout import SHARD_SUFFIX
from router.batch.stats import BatchStats

if TYPE_CHECKING:
    from ray.data._internal.execution.interfaces import TaskContext

__all__ = ["RowShards"]


class RowShards(BlockBasedFileDatasink):
    """Writes blocks of finished rows (see :mod:`.blocks`) as shards under ``path``."""

    def __init__(self, path: str, *, progress: Any | None = None) -> None:
        super().__init__(path, file_format=SHARD_SUFFIX.lstrip("."))
        self._progress = progress
        self.stats = BatchStats()

    def write_block_to_file(self, block: BlockAccessor, file: pa.NativeFile) -> None:
        file.write(b"".join(block.to_arrow()[ROW].to_pylist()))

    def write(self, blocks: Iterable[Block], ctx: TaskContext) -> BatchStats:  # type: ignore[override]
        blocks = list(blocks)
        super().write(blocks, ctx)
        counted = BatchStats()
        for block in blocks:
            for facts in BlockAccessor.for_block(block).to_arrow()[FACTS].to_pylist():
                counted.record(decode_facts(facts))
        if self._progress is not None:
            self._progress.record.remote(counted.outcomes)
        return counted

    def on_write_complete(self, write_result: WriteResult[BatchStats]) -> None:  # type: ignore[override]
        # Unlike the base class, never delete the directory, even when this run wrote nothing:
        # it holds the rows of the runs before.
        for counted in write_result.write_returns:
            self.stats.merge(counted)
