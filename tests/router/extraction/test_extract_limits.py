"""``extract`` keeps ``route()``'s limits: reply size and citations, in Python and on the CLI."""

from __future__ import annotations

import io
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from router.cli import main
from router.errors import ResponseParseError
from router.extraction import extract
from router.settings import RouterSettings

SMALL = 4096


def sonar_reply(sources: int) -> dict[str, Any]:
    """A Perplexity chat completion that names ``sources`` search results."""
    return {
        "id": "limits",
        "model": "sonar",
        "object": "chat.completion",
        "created": 1,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Answer [1]."},
                "finish_reason": "stop",
            }
        ],
        "citations": [f"https://site{i}.example/p" for i in range(sources)],
        "search_results": [
            {"title": f"Page {i}", "url": f"https://site{i}.example/p"} for i in range(sources)
        ],
    }


def test_citations_past_the_default_cap_are_cut_with_a_warning() -> None:
    """1,500 sources give route()'s 1,000, and a warning naming the setting and the cut."""
    response = extract("perplexity", json.dumps(sonar_reply(1500)))
    assert len(response.citations) == 1000
    assert any(
        "GROUNDING_ROUTER_MAX_CITATIONS=1000" in w and "500 cut" in w
        for w in response.metadata["warnings"]
    )


def test_the_citation_cap_comes_from_the_settings() -> None:
    """max_citations=5 keeps five sources."""
    settings = RouterSettings(max_citations=5)
    response = extract("perplexity", json.dumps(sonar_reply(20)), settings=settings)
    assert [c["rank"] for c in response.citations] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("form", ["str", "bytes", "pieces"])
def test_a_reply_past_the_size_limit_is_a_clear_error(form: str) -> None:
    """A text reply larger than max_reply_bytes raises reply_too_large, naming the setting."""
    text = json.dumps(sonar_reply(200))
    assert len(text) > SMALL
    reply: object = {
        "str": text,
        "bytes": text.encode(),
        "pieces": [text[i : i + 100] for i in range(0, len(text), 100)],
    }[form]
    with pytest.raises(ResponseParseError) as raised:
        extract("perplexity", reply, settings=RouterSettings(max_reply_bytes=SMALL))
    assert raised.value.reason == "reply_too_large"
    assert f"GROUNDING_ROUTER_MAX_REPLY_BYTES={SMALL}" in raised.value.message


def test_the_size_limit_counts_utf8_bytes_not_characters() -> None:
    """1,500 four-byte characters are 6,000 bytes: past a 4,096-byte limit."""
    text = json.dumps({"note": "\U0001f600" * 1500}, ensure_ascii=False)
    assert len(text) < SMALL < len(text.encode())
    with pytest.raises(ResponseParseError):
        extract("perplexity", text, settings=RouterSettings(max_reply_bytes=SMALL))


def test_a_reply_within_the_limit_reads_as_before() -> None:
    """A reply under the limit is read whole."""
    text = json.dumps(sonar_reply(3))
    response = extract("perplexity", text, settings=RouterSettings(max_reply_bytes=SMALL))
    assert len(response.citations) == 3


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    """The CLI's reply limit set to 4 KiB through its environment variable."""
    monkeypatch.setenv("GROUNDING_ROUTER_MAX_REPLY_BYTES", str(SMALL))
    return SMALL


def _refused(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "GROUNDING_ROUTER_MAX_REPLY_BYTES=4096" in captured.err
    return captured.err


@pytest.mark.usefixtures("small_limit")
def test_cli_refuses_a_file_past_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 5 KB reply file exits 6 with one line naming the limit and the setting."""
    big = tmp_path / "reply.json"
    big.write_text(json.dumps(sonar_reply(200)), encoding="utf-8")
    assert main(["extract", str(big), "--vendor", "perplexity"]) == 6
    assert "reply_too_large" in _refused(capsys)


@pytest.mark.usefixtures("small_limit")
def test_cli_reads_dev_zero_only_up_to_the_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """/dev/zero, which never ends, is refused once the limit is passed."""
    assert main(["extract", "/dev/zero", "--vendor", "openai"]) == 6
    _refused(capsys)


@pytest.mark.usefixtures("small_limit")
def test_cli_reads_a_fifo_only_up_to_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO whose writer never stops is refused once the limit is passed."""
    fifo = tmp_path / "reply.fifo"
    os.mkfifo(fifo)

    def write_forever() -> None:
        try:
            with fifo.open("wb") as writer:
                while True:
                    writer.write(b"x" * 1024)
        except OSError:  # the reader closed its end: broken pipe
            pass

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    assert main(["extract", str(fifo), "--vendor", "openai"]) == 6
    writer.join()
    _refused(capsys)


@pytest.mark.usefixtures("small_limit")
def test_cli_reads_stdin_only_up_to_the_limit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'-' reads stdin in pieces and stops past the limit."""
    stdin = io.TextIOWrapper(io.BytesIO(b"{" + b" " * (SMALL * 4)))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["extract", "-", "--vendor", "openai"]) == 6
    _refused(capsys)
    assert stdin.buffer.tell() <= SMALL + 1


def test_cli_refuses_a_2_gb_file_without_reading_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sparse 2 GiB file is refused from its size under the default 32 MiB limit."""
    huge = tmp_path / "huge.json"
    with huge.open("wb") as out:
        out.truncate(2 * 1024**3)
    assert main(["extract", str(huge), "--vendor", "openai"]) == 6
    captured = capsys.readouterr()
    assert "GROUNDING_ROUTER_MAX_REPLY_BYTES=33554432" in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.usefixtures("small_limit")
def test_cli_json_error_names_the_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --json the refusal is the error object, reason reply_too_large."""
    big = tmp_path / "reply.json"
    big.write_text(json.dumps(sonar_reply(200)), encoding="utf-8")
    assert main(["extract", str(big), "--vendor", "perplexity", "--json"]) == 6
    error = json.loads(capsys.readouterr().err)["error"]
    assert error["reason"] == "reply_too_large"
    assert "GROUNDING_ROUTER_MAX_REPLY_BYTES=4096" in error["message"]
