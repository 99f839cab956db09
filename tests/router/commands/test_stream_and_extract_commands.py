"""`route --stream` and `extract`: the command line over streams and stored replies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from router.cli import main
from router.emulator import Emulator
from support.recorded import recorded_files

GEMINI_SSE = recorded_files("pydantic-ai/gemini25pro_weather_grounding_stream.sse.txt")[0]


@pytest.fixture
def endpoints(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    monkeypatch.setenv("OPENAI_BASE_URL", emulator.openai_base_url)
    monkeypatch.setenv("GROUNDING_ROUTER_VERTEX_BASE_URL", emulator.vertex_base_url)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "cli-project")
    return emulator


def test_route_stream_prints_the_answer_then_the_citations(
    endpoints: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """The answer is printed, then the evidence line and the citation table."""
    argv = ["route", "--stream", "--vendor", "openai", "--model", "gpt-5", "--grounded", "News?"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "citations" in out
    assert out.index("grounded: True") < out.index("citations")


def test_route_stream_json_prints_one_event_per_line(
    endpoints: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --json-output each event is a JSON line; the text joins into the final content."""
    argv = ["route", "--stream", "--json-output", "--vendor", "vertex"]
    argv += ["--model", "gemini-2.5-flash", "--grounded", "News?"]
    assert main(argv) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[-1]["event"] == "completed"
    text = "".join(event["text"] for event in events if event["event"] == "text")
    assert text == events[-1]["response"]["content"]
    assert any(event["event"] == "citation" for event in events)


def test_route_stream_required_failure_exits_3(
    endpoints: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """REQUIRED grounding failing at the end of a stream exits 3, after the text."""
    argv = ["route", "--stream", "--vendor", "openai", "--model", "gpt-5", "--required"]
    assert main([*argv, "News? [[emulator:fault=no_search]]"]) == 3
    captured = capsys.readouterr()
    assert captured.out.strip()
    assert "GroundingRequiredFailedError" in captured.err


def test_extract_prints_a_stored_stream(capsys: pytest.CaptureFixture[str]) -> None:
    """`extract FILE --vendor vertex` prints the answer and the citation table."""
    assert main(["extract", str(GEMINI_SSE), "--vendor", "vertex"]) == 0
    out = capsys.readouterr().out
    assert "Weather in San Francisco" in out
    assert "citations" in out


def test_extract_json_is_the_response(capsys: pytest.CaptureFixture[str]) -> None:
    """`extract --json` prints the LLMResponse with its citations."""
    assert main(["extract", str(GEMINI_SSE), "--vendor", "vertex", "--json"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert len(response["citations"]) == 5


def test_extract_of_an_unreadable_file_warns_and_exits_6(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file holding no reply exits 6 and says what it saw."""
    junk = tmp_path / "junk.txt"
    junk.write_text("upstream connect error", encoding="utf-8")
    assert main(["extract", str(junk), "--vendor", "openai"]) == 6
    assert "nothing could be read" in capsys.readouterr().out


def test_extract_of_a_missing_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that cannot be read is bad input."""
    assert main(["extract", str(tmp_path / "missing.json"), "--vendor", "openai"]) == 2
    assert "cannot read" in capsys.readouterr().err
