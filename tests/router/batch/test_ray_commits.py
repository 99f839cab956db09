"""How routing actors commit rows: two phases, rolled back when cut short, found again on retry.

Plain file work on a temporary directory: no Ray cluster.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from router.batch.ray_engine.commits import (
    BatchCommits,
    block_key,
    committed,
    recover,
)
from router.batch.ray_engine.layout import Layout, make_places, plan_layout


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    places = plan_layout(str(tmp_path / "out"))
    make_places(places)
    return places


def finished(request_id: str) -> tuple[bytes, bytes, bytes]:
    line = json.dumps({"request_id": request_id, "ok": True}).encode() + b"\n"
    return request_id.encode(), line, b"facts-" + request_id.encode()


def test_a_commit_writes_the_shard_and_commits_its_ids(layout: Layout) -> None:
    """After commit, the shard holds the rows byte for byte and the checkpoint their ids."""
    rows = [finished("a"), finished("b")]
    BatchCommits(layout).commit("k", 0, rows)
    assert (Path(layout.shards) / "k-0000.jsonl").read_bytes() == rows[0][1] + rows[1][1]
    assert sorted(committed(layout)["request_id"].to_pylist()) == [b"a", b"b"]
    assert list(Path(layout.checkpoint).glob("*.pending.parquet")) == []


def test_a_commit_cut_short_is_rolled_back_at_start(layout: Layout) -> None:
    """A pending checkpoint without its commit: its shard and the pending file are deleted."""
    commits = BatchCommits(layout)
    commits.commit("k", 0, [finished("a")])
    commits.commit("k", 1, [finished("b")])
    committed_file = Path(layout.checkpoint) / "k-0001.parquet"
    committed_file.rename(Path(layout.checkpoint) / "k-0001.pending.parquet")
    assert recover(layout) == 1
    assert sorted(p.name for p in Path(layout.shards).iterdir()) == ["k-0000.jsonl"]
    assert committed(layout)["request_id"].to_pylist() == [b"a"]


def test_a_retried_block_finds_what_its_earlier_attempt_committed(layout: Layout) -> None:
    """earlier() returns the committed rows and facts, rolls back the pending, counts commits."""
    ids = [b"a", b"b", b"c"]
    key = block_key(ids)
    commits = BatchCommits(layout)
    commits.commit(key, 0, [finished("a")])
    commits.commit(key, 1, [finished("b")])
    (Path(layout.checkpoint) / f"{key}-0001.parquet").rename(
        Path(layout.checkpoint) / f"{key}-0001.pending.parquet"
    )
    earlier = commits.earlier(key)
    assert (earlier.request_ids, earlier.facts, earlier.commits) == ([b"a"], [b"facts-a"], 1)
    assert not (Path(layout.shards) / f"{key}-0001.jsonl").exists()


def test_block_keys_tell_blocks_apart() -> None:
    """The key is the same for the same ids and differs when the ids split differently."""
    assert block_key([b"a", b"b"]) == block_key([b"a", b"b"])
    assert block_key([b"ab"]) != block_key([b"a", b"b"])


def test_nothing_committed_reads_as_an_empty_table(layout: Layout) -> None:
    """A first run's read task finds no committed id."""
    assert committed(layout).num_rows == 0
