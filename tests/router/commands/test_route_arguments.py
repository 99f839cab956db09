"""``route`` as its peers behave: a default model, VENDOR:MODEL, the prompt from stdin, and
``--json`` meaning 'print JSON' as on every other command."""

from __future__ import annotations

import io
import json

import pytest

from adapters.registry import PROVIDERS, vendors
from router.cli import main
from router.commands.exit_codes import ExitCode
from router.emulator import Emulator


@pytest.fixture
def openai_emulated(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    monkeypatch.setenv("OPENAI_BASE_URL", emulator.openai_base_url)
    monkeypatch.setenv("GEMINI_API_KEY", "sk-emu-5c0d9a7e31b2f846")
    monkeypatch.setenv("GROUNDING_ROUTER_GEMINI_BASE_URL", emulator.gemini_base_url)
    monkeypatch.delenv("GROUNDING_ROUTER_DEFAULT_MODEL_OPENAI", raising=False)
    return emulator


def _json_out(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    out = capsys.readouterr().out
    parsed: dict[str, object] = json.loads(out)
    return parsed


def test_model_defaults_to_the_registry(
    openai_emulated: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --model, the vendor's registry default is asked."""
    assert main(["route", "--vendor", "openai", "--json", "Q?"]) == ExitCode.OK
    assert _json_out(capsys)["model"] == PROVIDERS["openai"].default_model


def test_model_defaults_to_the_setting(
    openai_emulated: Emulator, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR> wins over the registry's default."""
    monkeypatch.setenv("GROUNDING_ROUTER_DEFAULT_MODEL_OPENAI", "gpt-5-mini")
    assert main(["route", "--vendor", "openai", "--json", "Q?"]) == ExitCode.OK
    assert _json_out(capsys)["model"] == "gpt-5-mini"


@pytest.mark.parametrize("spelling", ["gemini:gemini-2.5-flash", "gemini/gemini-2.5-flash"])
def test_vendor_and_model_in_one_flag(
    spelling: str, openai_emulated: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """--model VENDOR:MODEL and VENDOR/MODEL name both, as pydantic-ai and LiteLLM users write."""
    assert main(["route", "--model", spelling, "--json", "Q?"]) == ExitCode.OK
    response = _json_out(capsys)
    assert (response["vendor"], response["model"]) == ("gemini", "gemini-2.5-flash")


def test_model_without_vendor_lists_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    """--model alone, with no vendor in it, is bad input that names every vendor."""
    assert main(["route", "--model", "gpt-5", "Q?"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "--vendor" in err
    for vendor in vendors():
        assert vendor in err


def test_prompt_is_read_from_stdin(
    openai_emulated: Emulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With no prompt argument, the question is read from stdin."""
    monkeypatch.setattr("sys.stdin", io.StringIO("Which river runs through Lyon?\n"))
    assert main(["route", "--vendor", "openai", "--grounded", "--json"]) == ExitCode.OK
    assert "Lyon" in str(_json_out(capsys)["content"])


def test_json_answer_asks_the_model(
    openai_emulated: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json-answer sets JSON mode: the response carries the parsed value."""
    assert main(["route", "--vendor", "openai", "--json-answer", "--json", "Q?"]) == 0
    assert _json_out(capsys)["parsed"] is not None


def test_old_json_output_spelling_still_prints_json(
    openai_emulated: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json-output keeps working and says it is now --json."""
    assert main(["route", "--vendor", "openai", "--json-output", "Q?"]) == ExitCode.OK
    captured = capsys.readouterr()
    assert json.loads(captured.out)["vendor"] == "openai"
    assert "--json-output is now --json" in captured.err
