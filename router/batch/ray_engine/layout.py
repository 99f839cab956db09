"""Where a Ray batch job keeps its rows and checkpoint, and the merge into one JSONL file.

``-o`` names either a directory of shards (the job's own output, read as it is by
``grounding-router als``) or, when it ends in ``.jsonl``, one file: the shards then live in
``OUT.shards/`` beside it and are merged into OUT when the job ends. The checkpoint lives in a
directory of its own beside them (``OUT.checkpoint`` unless ``--checkpoint`` says
otherwise): Ray Data's recovery deletes files in the shard directory whose names match a
pending checkpoint, so the two must not share a directory. Every path may be a local path or an
object-store URI; a multi-node cluster needs one that every node can reach.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow.fs as pafs

from router.batch.input import MAX_LINE_BYTES
from router.batch.output import row_request_id
from router.batch.seen_ids import SeenIds
from router.logging import get_logger
from router.text.jsonl import Line, read_lines

__all__ = [
    "Layout",
    "MergeResult",
    "absolute",
    "input_lines",
    "make_places",
    "merge_shards",
    "plan_layout",
    "prepare",
    "resolve",
]

log = get_logger(__name__)

MERGED_SUFFIX = ".jsonl"
SHARD_SUFFIX = ".jsonl"
CHECKPOINT_SUFFIXES = (".parquet",)


@dataclass(frozen=True)
class Layout:
    """The places of one job's output; ``merged`` is None when ``-o`` names a directory."""

    shards: str
    checkpoint: str
    merged: str | None


@dataclass(frozen=True)
class MergeResult:
    rows: int
    duplicates_dropped: int
    unreadable_lines: int


def plan_layout(output: str, checkpoint: str | None = None) -> Layout:
    """Where the shards, the checkpoint and the merged file of ``output`` go (absolute)."""
    if not output.strip("/"):
        raise ValueError(f"not an output path: {output!r}")
    target = absolute(output).rstrip("/")
    merged = target if target.endswith(MERGED_SUFFIX) else None
    shards = f"{target}.shards" if merged else target
    place = absolute(checkpoint) if checkpoint else f"{target}.checkpoint"
    return Layout(shards=shards, checkpoint=place, merged=merged)


def absolute(place: str) -> str:
    """An object-store URI as it is, a local path made absolute: Ray's workers do not run in
    this process's working directory, and Ray Data's checkpoint takes absolute paths only."""
    return place if "://" in place else os.path.abspath(place)


def prepare(layout: Layout, source: str, *, resume: bool, overwrite: bool) -> None:
    """Check the places are this job's to use; start over when ``overwrite`` says so.

    Refuses a shard or checkpoint directory holding anything a job does not write there (so an
    ``--overwrite`` never deletes what is not ours), and output that would replace the input.
    """
    if resume and overwrite:
        raise ValueError("resume and overwrite contradict each other: choose one")
    source_fs, source_path = resolve(source)
    if source_fs.get_file_info(source_path).type != pafs.FileType.File:
        raise FileNotFoundError(f"input file not found: {source}")
    for place in (layout.merged, layout.shards, layout.checkpoint):
        if place is not None and _same_place(source, place):
            raise ValueError(f"the output {place} would overwrite the input {source}")
    shards = _own_files(layout.shards, SHARD_SUFFIX, "shard")
    checkpoints = _own_files(layout.checkpoint, CHECKPOINT_SUFFIXES, "checkpoint")
    merged = _file_size(layout.merged) if layout.merged else None
    if not (shards or checkpoints or merged):
        return
    if overwrite:
        for directory in (layout.shards, layout.checkpoint):
            _delete_files(directory, list(_files(directory)))
        if layout.merged:
            fs, path = resolve(layout.merged)
            fs.delete_file(path)
        return
    if not resume:
        what = layout.merged if merged else layout.shards if shards else layout.checkpoint
        raise FileExistsError(
            f"{what} already holds results: resume to continue it, or overwrite to start over"
        )


def input_lines(stream: Any) -> Iterator[Line]:
    """The non-blank lines of a binary stream (a pyarrow file), as the batch reader reads them."""
    lines = read_lines(io.BufferedReader(stream), max_bytes=MAX_LINE_BYTES)
    return (line for line in lines if not line.blank)


def make_places(layout: Layout) -> None:
    """Create the shard and checkpoint directories (the routing actors commit into them)."""
    for directory in (layout.shards, layout.checkpoint):
        fs, path = resolve(directory)
        fs.create_dir(path, recursive=True)


def merge_shards(layout: Layout) -> MergeResult:
    """Write every shard's rows into the merged file, each request_id once (the first kept).

    The checkpoint already keeps each id to one committed shard; this is the last guard for a
    row written twice by a task that outlived its job (see the README's guarantee). The ids
    met are kept on disk (:class:`router.batch.seen_ids.SeenIds`, as the local engine keeps
    them), so the driver's memory does not grow with the job. Directory output (``-o DIR``)
    has nothing to merge: its shards are the output.
    """
    assert layout.merged is not None
    fs, merged_path = resolve(layout.merged)
    partial = f"{merged_path}.partial"
    rows = duplicates = unreadable = 0
    with SeenIds() as seen, fs.open_output_stream(partial) as out:
        for info in sorted(_files(layout.shards), key=lambda i: i.base_name):
            if not info.base_name.endswith(SHARD_SUFFIX):
                continue
            with fs.open_input_stream(info.path) as stream:
                for line in read_lines(io.BufferedReader(stream)):
                    request_id = row_request_id(line.data) if line.complete else None
                    if request_id is None:
                        unreadable += not line.blank
                        continue
                    if request_id in seen:
                        duplicates += 1
                        continue
                    seen.add(request_id)
                    out.write(line.data + b"\n")
                    rows += 1
    fs.move(partial, merged_path)
    if duplicates or unreadable:
        log.warning("batch_merge_dropped", duplicates=duplicates, unreadable_lines=unreadable)
    return MergeResult(rows=rows, duplicates_dropped=duplicates, unreadable_lines=unreadable)


def resolve(place: str) -> tuple[Any, str]:
    """The filesystem and path of a local path or an object-store URI."""
    if "://" in place:
        fs, path = pafs.FileSystem.from_uri(place)
        return fs, str(path)
    return pafs.LocalFileSystem(), place


def _same_place(source: str, place: str) -> bool:
    if "://" in source or "://" in place:
        return source.rstrip("/") == place.rstrip("/")
    try:
        return os.path.samefile(source, place)
    except OSError:
        return False


def _files(directory: str) -> Iterator[Any]:
    fs, path = resolve(directory)
    selector = pafs.FileSelector(path, recursive=False, allow_not_found=True)
    return iter(fs.get_file_info(selector))


def _own_files(directory: str, suffixes: str | tuple[str, ...], what: str) -> int:
    fs, path = resolve(directory)
    kind = fs.get_file_info(path).type
    if kind == pafs.FileType.NotFound:
        return 0
    if kind != pafs.FileType.Directory:
        raise ValueError(f"{directory} is not a directory: it cannot hold the job's {what}s")
    infos = list(_files(directory))
    strangers = [
        i.base_name
        for i in infos
        if i.type != pafs.FileType.File or not i.base_name.endswith(suffixes)
    ]
    if strangers:
        raise ValueError(
            f"{directory} holds files a batch job does not write ({strangers[0]!r}): "
            f"give a new or empty directory for the {what}s"
        )
    return len(infos)


def _delete_files(directory: str, infos: list[Any]) -> None:
    fs, _ = resolve(directory)
    for info in infos:
        fs.delete_file(info.path)


def _file_size(place: str) -> int:
    fs, path = resolve(place)
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        return 0
    if info.type != pafs.FileType.File:
        raise ValueError(f"{place} is not a regular file")
    return int(info.size or 0)
