"""The Ray engine's input: the rows a read task makes are the local engine's items, line for line.

The read runs here without a cluster (:func:`input_blocks` is what each read task runs on its
file), over hostile lines: nested past every limit, not UTF-8, repeated ids, cut short.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs

from router.batch.input import BatchInput, line_request_id
from router.batch.ray_engine.blocks import decode_id, encode_id
from router.batch.ray_engine.commits import BatchCommits
from router.batch.ray_engine.layout import input_lines, make_places, plan_layout
from router.batch.ray_engine.source import CommittedIds, input_blocks
from router.text.redaction import REDACTED
from support.hostile_lines import POISON_LINES, hostile_line, valid_request


def read_on_ray(path: Path, **options: Any) -> list[dict[str, Any]]:
    """The rows the Ray read task makes of ``path``."""
    fs = pafs.LocalFileSystem()

    def all_ids() -> set[str]:
        with fs.open_input_stream(str(path)) as again:
            return {line_request_id(line) for line in input_lines(again)}

    with fs.open_input_stream(str(path)) as stream:
        return pa.concat_tables(list(input_blocks(stream, all_ids, **options))).to_pylist()


def test_rows_are_the_local_readers_items(tmp_path: Path) -> None:
    """300 hostile lines and the two poison lines: same ids, lines and verdicts as BatchInput."""
    rng = random.Random(20)
    lines = [hostile_line(rng, number) for number in range(1, 301)]
    lines += [poison.encode() for poison in POISON_LINES]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    items = list(BatchInput(path))
    rows = read_on_ray(path)
    ids = [(decode_id(r["request_id"]), r["line"]) for r in rows]
    assert ids == [(item.request_id, item.line) for item in items]
    assert [r["request"] is not None for r in rows] == [i.request is not None for i in items]
    errors = [json.loads(r["row"])["error"] for r in rows if r["row"] is not None]
    assert errors == [i.error.to_dict() for i in items if i.error is not None]


def test_a_bad_lines_row_carries_no_secret(tmp_path: Path) -> None:
    """A key quoted in a bad line never reaches its error row, as with the local engine."""
    secret = "sk-input-line-secret-4f9c2a7d"
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(valid_request(1, vendor=secret)) + "\n")
    (row,) = read_on_ray(path, secrets=[secret])
    assert secret not in row["row"].decode()
    assert REDACTED in row["row"].decode()


def test_committed_ids_are_skipped_from_the_on_disk_index(tmp_path: Path) -> None:
    """Ids committed by earlier runs (one a lone surrogate) are found, others are not."""
    layout = plan_layout(str(tmp_path / "out"))
    make_places(layout)
    odd = "odd-\ud800"
    commits = BatchCommits(layout)
    for n, request_id in enumerate(["a", "b", odd]):
        commits.commit(f"k{n}", 0, [(encode_id(request_id), b"{}\n", b"facts")])
    with CommittedIds(layout) as done:
        assert [encode_id(i) in done for i in ("a", "b", odd, "c")] == [True, True, True, False]
        assert "a" not in done  # the blocks hold ids encoded: text is never a committed id
