"""Taking failed rows out of an output and putting their new rows back in their places."""

from __future__ import annotations

import json
from pathlib import Path

from router.batch.retry_failed import is_retryable, put_back_in_place, take_out_failed

OK = {"ok": True}
TRANSIENT = {"ok": False, "error": {"type": "ProviderTransientError"}}
REFUSED = {"ok": False, "error": {"type": "ProviderRequestError"}}


def write_rows(path: Path, rows: list[dict[str, object]], tail: bytes = b"") -> None:
    """Write ``rows`` as JSONL, then ``tail`` (a cut-off line)."""
    path.write_bytes(b"".join(json.dumps(row).encode() + b"\n" for row in rows) + tail)


def ids(path: Path) -> list[str]:
    """The request_ids of ``path``'s rows, in order."""
    return [json.loads(line)["request_id"] for line in path.read_text().splitlines()]


def test_only_ids_the_input_holds_are_taken_out(tmp_path: Path) -> None:
    """A failed row whose id the input no longer has stays: it would not run again."""
    out = tmp_path / "out.jsonl"
    write_rows(out, [{"request_id": "a", **REFUSED}, {"request_id": "gone", **REFUSED}])
    plan = take_out_failed(out, {"a"}, "all")
    assert ids(out) == ["gone"]
    assert plan.positions == {"a": 0}


def test_cut_off_last_line_is_dropped(tmp_path: Path) -> None:
    """A killed run's unfinished last line is not kept, as a resume would cut it."""
    out = tmp_path / "out.jsonl"
    write_rows(out, [{"request_id": "a", **OK}], tail=b'{"request_id": "b", "ok"')
    take_out_failed(out, {"a", "b"}, "all")
    assert out.read_text() == json.dumps({"request_id": "a", **OK}) + "\n"


def test_new_rows_go_back_where_the_failed_ones_stood(tmp_path: Path) -> None:
    """Rows appended for taken ids move to their old places; other appended rows stay last."""
    out = tmp_path / "out.jsonl"
    rows = [
        {"request_id": "a", **TRANSIENT},
        {"request_id": "b", **OK},
        {"request_id": "c", **TRANSIENT},
    ]
    write_rows(out, rows)
    plan = take_out_failed(out, {"a", "b", "c", "new"}, "transient")
    assert ids(out) == ["b"]
    with out.open("a") as handle:  # what the resumed run appends
        for request_id in ("c", "new", "a"):
            handle.write(json.dumps({"request_id": request_id, **OK}) + "\n")
    assert put_back_in_place(out, plan) == 2
    assert ids(out) == ["a", "b", "c", "new"]


def test_transient_means_a_provider_failure_that_may_pass() -> None:
    """=transient takes transient provider errors, in a row or one provider of a fan-out."""
    fanout = {"ok": False, "fanout": {"providers": {"openai": {"ok": False, **TRANSIENT}}}}
    assert is_retryable(TRANSIENT, "transient")
    assert is_retryable(fanout, "transient")
    assert not is_retryable(REFUSED, "transient")
    assert is_retryable(REFUSED, "all")
    assert not is_retryable(OK, "all")
