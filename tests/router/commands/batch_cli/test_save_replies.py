"""``--save-replies DIR`` on ``batch`` and ``route``: each provider reply kept, replayable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from router.batch.saved_replies import folder_name
from router.cli import main
from router.commands.exit_codes import ExitCode
from support.batch_lines import request_line, write_lines


def extracted_answer(capsys: pytest.CaptureFixture[str], body: Path) -> str:
    """The answer ``extract --vendor openai`` reads from a saved reply."""
    capsys.readouterr()
    assert main(["extract", "--vendor", "openai", str(body), "--json"]) == ExitCode.OK
    return str(json.loads(capsys.readouterr().out)["content"])


@pytest.mark.usefixtures("emulator")
def test_batch_keeps_each_reply_per_request_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each row's reply is kept under its id, and extract reads the row's answer from it."""
    source = write_lines(tmp_path / "in.jsonl", [request_line("a"), request_line("b/c")])
    out, replies = tmp_path / "out.jsonl", tmp_path / "replies"
    argv = ["batch", str(source), "-o", str(out), "--no-progress"]
    assert main([*argv, "--save-replies", str(replies)]) == ExitCode.OK
    rows = {row["request_id"]: row for row in map(json.loads, out.read_text().splitlines())}
    for request_id, row in rows.items():
        (body,) = (replies / folder_name(request_id)).glob("*.body")
        assert extracted_answer(capsys, body) == row["response"]["content"]


@pytest.mark.usefixtures("emulator")
def test_route_stream_keeps_the_event_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """route --stream --save-replies keeps the stream, which extract replays to the answer."""
    replies = tmp_path / "replies"
    argv = ["route", "What is new?", "--vendor", "openai", "--grounded", "--stream", "--json"]
    code = main([*argv, "--request-id", "q1", "--save-replies", str(replies)])
    assert code == ExitCode.OK
    (body,) = (replies / "q1").glob("*.body")
    assert b"data:" in body.read_bytes()
    assert extracted_answer(capsys, body)


def test_save_replies_into_a_missing_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DIR whose parent does not exist is refused in the one form, nothing sent."""
    source = write_lines(tmp_path / "in.jsonl", [request_line("a")])
    replies = tmp_path / "no" / "replies"
    argv = ["batch", str(source), "-o", str(tmp_path / "out.jsonl"), "--no-progress"]
    assert main([*argv, "--save-replies", str(replies)]) == ExitCode.BAD_INPUT
    assert f"cannot write {replies} (--save-replies): the directory" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("request_id", "expected"),
    [("req-1", "req-1"), ("a/b", "a%2Fb"), ("..", None), ("x" * 300, None)],
)
def test_folder_names_are_safe(request_id: str, expected: str | None) -> None:
    """An id becomes one path component: kept when safe, escaped or hashed otherwise."""
    name = folder_name(request_id)
    assert "/" not in name
    assert not name.startswith(".")
    assert len(name) <= 120
    if expected is not None:
        assert name == expected
