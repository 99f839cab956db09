"""`grounding-router compare`, run in-process against the emulator."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from adapters.registry import vendors
from router.cli import main
from router.emulated import emulated_environment
from router.emulator import Emulator

QUESTION = "What is the capital of France?"
OPENAI_BAD_REQUEST = json.dumps(
    {"error": {"message": "Invalid model", "type": "invalid_request_error", "code": None}}
).encode()


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """A fresh emulator, and the CLI's environment pointing every vendor at it."""
    with Emulator() as running:
        for name, value in emulated_environment(running).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "1")
        monkeypatch.setenv("COLUMNS", "200")
        yield running


@pytest.mark.usefixtures("emulator")
def test_compare_asks_every_vendor_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    """With only a question, every registered vendor answers; sources and agreement follow."""
    assert main(["compare", QUESTION]) == 0
    out = capsys.readouterr().out
    for vendor in vendors():
        assert f"{vendor} (" in out
    assert "sources" in out
    assert "agreement" in out
    assert "wikipedia.org" in out


@pytest.mark.usefixtures("emulator")
def test_compare_json_holds_every_outcome_and_the_aggregate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--json prints each provider's outcome and the aggregate as one JSON document."""
    assert main(["compare", QUESTION, "--vendors", "openai,vertex", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["providers"]) == {"openai", "vertex"}
    assert all(outcome["ok"] for outcome in data["providers"].values())
    assert data["aggregate"]["providers"] == ["openai", "vertex"]
    assert data["aggregate"]["entries"][0]["providers_cited"]


def test_a_failed_provider_shows_its_error_and_the_others_answer(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """One provider's error is printed beside the other's answer; require any still exits 0."""
    emulator.enqueue_reply("openai", OPENAI_BAD_REQUEST, status=400)
    assert main(["compare", QUESTION, "--vendors", "openai,vertex"]) == 0
    out = capsys.readouterr().out
    assert "openai: ProviderRequestError (bad_request)" in out
    assert "vertex (" in out


def test_require_all_exits_with_the_failed_providers_code(
    emulator: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """--require all and one rejected call: the provider-error exit code, outcomes still shown."""
    emulator.enqueue_reply("openai", OPENAI_BAD_REQUEST, status=400)
    assert main(["compare", QUESTION, "--vendors", "openai,vertex", "--require", "all"]) == 4
    assert "vertex (" in capsys.readouterr().out


@pytest.mark.parametrize(
    "arguments",
    [["--vendors", "openai,nobody"], ["--vendors", ","], ["--model", "gpt-5"], ["--model", "x=y"]],
    ids=["unknown-vendor", "no-vendor", "model-without-vendor", "model-of-unknown-vendor"],
)
def test_bad_flags_exit_2_naming_the_choices(
    arguments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """A vendor the registry does not hold is refused before any call, naming the known ones."""
    with pytest.raises(SystemExit) as exited:
        main(["compare", QUESTION, *arguments])
    assert exited.value.code == 2
    assert "openai" in capsys.readouterr().err
