"""``--retry-failed`` on a Ray job's commits: failed rows uncommitted, the rest kept, each once.

Plain file work on a temporary directory: no Ray cluster.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from router.batch.ray_engine.commits import BatchCommits, committed, committed_files, recover
from router.batch.ray_engine.layout import SHARD_SUFFIX, Layout, make_places, plan_layout
from router.batch.ray_engine.retry import input_ids, take_out_failed


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    places = plan_layout(str(tmp_path / "out"))
    make_places(places)
    return places


def row(request_id: str, error: str | None = None) -> tuple[bytes, bytes, bytes]:
    data: dict[str, object] = {"request_id": request_id, "ok": error is None}
    if error is not None:
        data["error"] = {"type": error}
    line = json.dumps(data).encode() + b"\n"
    return request_id.encode(), line, b"facts-" + request_id.encode()


def shard_ids(layout: Layout) -> list[str]:
    return sorted(
        json.loads(line)["request_id"]
        for shard in Path(layout.shards).glob(f"*{SHARD_SUFFIX}")
        for line in shard.read_bytes().splitlines()
    )


def committed_ids(layout: Layout) -> list[str]:
    return sorted(i.decode() for i in committed(layout)["request_id"].to_pylist())


@pytest.fixture
def two_commits(layout: Layout) -> Layout:
    commits = BatchCommits(layout)
    commits.commit("k", 0, [row("a"), row("b", "ProviderTransientError"), row("c")])
    commits.commit("k", 1, [row("d", "ProviderRequestError")])
    commits.commit("m", 0, [row("e")])
    return layout


def test_failed_rows_are_uncommitted_and_the_rest_kept(two_commits: Layout) -> None:
    """b and d leave the shards and the checkpoint; a, c and e stay, each once, facts and all."""
    taken = take_out_failed(two_commits, {"a", "b", "c", "d", "e"}, "all")
    try:
        assert taken.taken == 2
        assert [name in taken.ids for name in "abcde"] == [False, True, False, True, False]
    finally:
        taken.close()
    assert shard_ids(two_commits) == committed_ids(two_commits) == ["a", "c", "e"]
    facts = committed(two_commits, columns=("request_id", "facts"))
    assert sorted(facts["facts"].to_pylist()) == [b"facts-a", b"facts-c", b"facts-e"]
    assert len(committed_files(two_commits)) == 2  # k-0000 replaced, k-0001 gone, m-0000 kept


def test_transient_takes_out_only_transient_failures(two_commits: Layout) -> None:
    taken = take_out_failed(two_commits, {"a", "b", "c", "d", "e"}, "transient")
    taken.close()
    assert taken.taken == 1
    assert shard_ids(two_commits) == committed_ids(two_commits) == ["a", "c", "d", "e"]


def test_an_id_the_input_no_longer_holds_stays(two_commits: Layout) -> None:
    """A failed row whose id would not run again is kept: taking it out would lose it."""
    taken = take_out_failed(two_commits, {"a", "c", "d", "e"}, "all")
    taken.close()
    assert taken.taken == 1
    assert committed_ids(two_commits) == ["a", "b", "c", "e"]


def test_a_take_out_killed_after_uncommitting_leaves_nothing_of_the_shard(
    two_commits: Layout,
) -> None:
    """A shard whose checkpoint file was deleted (killed before the shard went) is deleted at
    the next run's recovery: its ids are not committed, so a resumed run routes them."""
    (Path(two_commits.checkpoint) / "k-0001.parquet").unlink()
    assert recover(two_commits) == 1
    assert shard_ids(two_commits) == committed_ids(two_commits) == ["a", "b", "c", "e"]


def test_input_ids_are_the_ids_a_job_assigns(tmp_path: Path) -> None:
    """Repeated and missing ids come out renamed and derived, as the read task names them."""
    source = tmp_path / "in.jsonl"
    source.write_text('{"request_id": "x"}\n\n{"request_id": "x"}\nnot json\n')
    ids = list(input_ids(str(source)))
    assert ids[0] == "x"
    assert ids[1] == "x#line3"
    assert len(ids) == 3
    assert ids[2] not in ("x", "x#line3")
