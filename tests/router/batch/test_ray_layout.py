"""Where a Ray job keeps its output, what it may delete, the merge, and the sizing rule.

None of this needs a Ray cluster: the paths, checks and merge are plain file work.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from router.batch.ray_engine.cluster import RESERVED_CPUS, actor_range
from router.batch.ray_engine.layout import (
    Layout,
    merge_shards,
    plan_layout,
    prepare,
)


def row(request_id: str, **extra: object) -> bytes:
    return json.dumps({"request_id": request_id, "ok": False, **extra}).encode() + b"\n"


@pytest.fixture
def source(tmp_path: Path) -> str:
    path = tmp_path / "in.jsonl"
    path.write_text('{"request_id": "a"}\n\n{"request_id": "b"}\n')
    return str(path)


def test_a_jsonl_output_is_merged_from_shards_beside_it() -> None:
    """-o out.jsonl: shards in out.jsonl.shards, checkpoint in out.jsonl.checkpoint."""
    assert plan_layout("/runs/out.jsonl") == Layout(
        shards="/runs/out.jsonl.shards",
        checkpoint="/runs/out.jsonl.checkpoint",
        merged="/runs/out.jsonl",
    )


def test_local_paths_are_made_absolute(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ray's workers run elsewhere, and its checkpoint takes absolute paths only."""
    monkeypatch.chdir(tmp_path)
    layout = plan_layout("out", "ckpt")
    assert (layout.shards, layout.checkpoint) == (str(tmp_path / "out"), str(tmp_path / "ckpt"))


def test_any_other_output_is_a_directory_of_shards() -> None:
    """-o s3://bucket/run/: the shards are the output; the checkpoint sits beside them."""
    assert plan_layout("s3://bucket/run/") == Layout(
        shards="s3://bucket/run", checkpoint="s3://bucket/run.checkpoint", merged=None
    )


def test_checkpoint_path_may_be_given() -> None:
    """--checkpoint puts the checkpoint where it says (a path every node can reach)."""
    assert plan_layout("out", "/mnt/shared/ckpt").checkpoint == "/mnt/shared/ckpt"


def test_existing_results_need_resume_or_overwrite(source: str, tmp_path: Path) -> None:
    """A second run on the same output says what to do instead of mixing runs."""
    layout = plan_layout(str(tmp_path / "out.jsonl"))
    Path(layout.shards).mkdir()
    (Path(layout.shards) / "a.jsonl").write_bytes(row("a"))
    with pytest.raises(FileExistsError, match="resume to continue it"):
        prepare(layout, source, resume=False, overwrite=False)
    prepare(layout, source, resume=True, overwrite=False)


def test_overwrite_deletes_the_jobs_own_files(source: str, tmp_path: Path) -> None:
    """--overwrite empties the shard and checkpoint directories and removes the merged file."""
    layout = plan_layout(str(tmp_path / "out.jsonl"))
    for directory, name in ((layout.shards, "s.jsonl"), (layout.checkpoint, "c.parquet")):
        Path(directory).mkdir()
        (Path(directory) / name).write_bytes(b"x")
    Path(str(layout.merged)).write_bytes(row("a"))
    prepare(layout, source, resume=False, overwrite=True)
    assert list(Path(layout.shards).iterdir()) == []
    assert list(Path(layout.checkpoint).iterdir()) == []
    assert not Path(str(layout.merged)).exists()


def test_a_directory_with_other_files_is_refused_and_kept(source: str, tmp_path: Path) -> None:
    """-o naming a directory of someone else's files is refused, even with --overwrite."""
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "cat.png").write_bytes(b"png")
    with pytest.raises(ValueError, match="holds files a batch job does not write"):
        prepare(plan_layout(str(tmp_path / "photos")), source, resume=False, overwrite=True)
    assert (tmp_path / "photos" / "cat.png").read_bytes() == b"png"


def test_output_may_not_be_the_input(source: str) -> None:
    """-o naming the input file is refused before anything is written."""
    with pytest.raises(ValueError, match="would overwrite the input"):
        prepare(plan_layout(source), source, resume=True, overwrite=False)


def test_missing_input_is_reported(tmp_path: Path) -> None:
    """A missing input file is a FileNotFoundError naming it, as with the local engine."""
    with pytest.raises(FileNotFoundError, match=r"nope\.jsonl"):
        prepare(
            plan_layout(str(tmp_path / "o.jsonl")),
            str(tmp_path / "nope.jsonl"),
            resume=False,
            overwrite=False,
        )


def test_merge_keeps_the_first_row_of_each_id(tmp_path: Path) -> None:
    """Shards merge in name order, each request_id once; a line cut short is left out."""
    layout = plan_layout(str(tmp_path / "out.jsonl"))
    shards = Path(layout.shards)
    shards.mkdir()
    (shards / "1.jsonl").write_bytes(row("a", n=1) + row("b"))
    (shards / "2.jsonl").write_bytes(row("a", n=2) + row("c") + b'{"request_id": "d"')
    result = merge_shards(layout)
    merged = [json.loads(line) for line in Path(str(layout.merged)).read_text().splitlines()]
    assert [(r["request_id"], r.get("n")) for r in merged] == [
        ("a", 1),
        ("b", None),
        ("c", None),
    ]
    assert (result.rows, result.duplicates_dropped, result.unreadable_lines) == (3, 1, 1)


def test_merge_keeps_the_ids_it_met_off_the_python_heap(tmp_path: Path) -> None:
    """50,000 ids merged: Python's own allocations peak far below what a set of them takes.

    A set of these ids holds about 4 MB of strings and table; the merge keeps them in the
    on-disk index (SQLite's memory, which tracemalloc does not count), so only a line or so
    is held at once.
    """
    layout = plan_layout(str(tmp_path / "out.jsonl"))
    shards = Path(layout.shards)
    shards.mkdir()
    ids = [f"request-{n:08d}" for n in range(50_000)]
    for shard in range(10):
        (shards / f"{shard}.jsonl").write_bytes(b"".join(map(row, ids[shard::10])))
    as_a_set = _python_peak(lambda: {f"request-{n:08d}" for n in range(len(ids))})
    tracemalloc.start()
    try:
        result = merge_shards(layout)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.rows == len(ids)
    assert peak < as_a_set / 4, (peak, as_a_set)


def _python_peak(make: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        kept = make()
        _, peak = tracemalloc.get_traced_memory()
        del kept
    finally:
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    ("cpus", "requested", "expected"),
    [
        (RESERVED_CPUS + 1, None, (2, 2)),
        (RESERVED_CPUS + 8, None, (2, 2)),
        (RESERVED_CPUS + 0.5, None, (1, 1)),
        (RESERVED_CPUS + 1, (2, 8), (2, 2)),
        (RESERVED_CPUS + 4, (1, 3), (1, 3)),
        (RESERVED_CPUS + 0.5, (4, 4), (1, 1)),
    ],
)
def test_actors_leave_the_reserve_free(
    cpus: float, requested: tuple[int, int] | None, expected: tuple[int, int]
) -> None:
    """The routing actors hold at most the cluster's CPUs less the reserve (cluster.py); by
    default one per 32 requests of a concurrency of 64, in a pool of fixed size."""
    assert actor_range(requested, cpus, concurrency=64) == expected


def test_a_cluster_without_room_for_one_actor_is_refused() -> None:
    """Below the reserve plus one actor a job could never finish: refused with the reason."""
    with pytest.raises(ValueError, match="logical CPUs"):
        actor_range(None, RESERVED_CPUS)
