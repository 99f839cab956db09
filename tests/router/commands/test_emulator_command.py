"""`grounding-router emulator`: the foreground server, in-process and as a real process."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from router.cli import build_parser, main
from router.commands import emulator as command
from router.emulator.apis import API_NAMES
from router.emulator.faults import FAULT_KINDS

ROOT = Path(__file__).resolve().parents[3]


def ask_openai(base_url: str) -> dict[str, object]:
    body = {"model": "gpt-4o", "input": "Capital of France?", "tools": [{"type": "web_search"}]}
    request = urllib.request.Request(
        base_url + "/responses",
        data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer test"},
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        result: dict[str, object] = json.loads(reply.read())
        return result


def test_serves_until_told_to_stop(capsys: pytest.CaptureFixture[str]) -> None:
    """It prints both base URLs and the variables to set, serves, and exits 0 when stopped."""
    answers: list[dict[str, object]] = []

    def use_it() -> None:
        printed = capsys.readouterr().out
        base = re.search(r"export OPENAI_BASE_URL=(\S+)", printed)
        assert base is not None
        answers.append(ask_openai(base.group(1)))

    args = build_parser().parse_args(["emulator", "--latency-ms", "1"])
    assert command.run(args, wait=use_it) == 0
    assert answers[0]["object"] == "response"
    assert "emulator stopped" in capsys.readouterr().out


def test_announcement_names_both_endpoints(capsys: pytest.CaptureFixture[str]) -> None:
    """The banner tells how to point the router at the emulator."""
    args = build_parser().parse_args(["emulator"])
    command.run(args, wait=lambda: None)
    out = capsys.readouterr().out
    assert re.search(r"OpenAI Responses : http://127\.0\.0\.1:\d+/v1\n", out)
    assert "GROUNDING_ROUTER_VERTEX_BASE_URL=http://127.0.0.1:" in out


def test_help_names_every_fault_kind_and_api(capsys: pytest.CaptureFixture[str]) -> None:
    """--help lists what a fault spec may name; the text is static so the CLI starts light."""
    with pytest.raises(SystemExit):
        main(["emulator", "--help"])
    words = set(re.findall(r"[a-z_0-9]+", capsys.readouterr().out.replace("\n", " ")))
    assert set(FAULT_KINDS) - words == set()
    assert set(API_NAMES) - words == set()
    assert "Anthropic Messages" in command._DESCRIPTION


@pytest.mark.parametrize(
    "argv",
    [["emulator", "--fault", "teapot"], ["emulator", "--replay", "/nonexistent-replay-dir"]],
    ids=["bad_fault", "missing_replay_dir"],
)
def test_bad_options_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A bad fault spec or replay directory is bad input, said on stderr."""
    assert main(argv) == 2
    assert "grounding-router emulator:" in capsys.readouterr().err


def test_ctrl_c_stops_the_process_cleanly() -> None:
    """As a real process it serves until SIGINT, then exits 0."""
    process = subprocess.Popen(
        [sys.executable, "-m", "router.cli", "emulator", "--fault", "no_search"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = ""
        while "OPENAI_BASE_URL=" not in line:
            line = process.stdout.readline()
            assert line, process.stderr.read() if process.stderr else ""
        base_url = line.split("OPENAI_BASE_URL=")[1].split()[0]
        answer = ask_openai(base_url)  # grounded, but --fault no_search keeps it from searching
        assert [item["type"] for item in answer["output"]] == ["message"]  # type: ignore[attr-defined]
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 0
    assert "emulator stopped" in out
