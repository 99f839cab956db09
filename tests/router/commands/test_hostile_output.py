"""Hostile provider text reaches the terminal neutralised, through the real CLI in-process.

Recorded replies are rewritten so every title, snippet, query, domain and answer carries ANSI
and OSC escape sequences, terminal hyperlinks, C1 controls, bidirectional overrides and markup
(``support.hostile``), then replayed by the emulator to ``route``, ``demo`` and ``batch``; ``als``
reads a batch file written the same way. Nothing a terminal would act on may reach stdout or
stderr, and the visible words of the hostile texts are still printed, as text.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import router.emulator
from router.cli import main
from router.emulator import Emulator
from support.emulated import MODELS, VENDORS
from support.hostile import HOSTILE_TEXTS, VISIBLE_WORDS, hostile_reply, unsafe_characters
from support.recorded import vendor_reply_kind

RECORDED = Path(__file__).parents[2] / "data" / "recorded"
# One recorded body per kind of reply (support.recorded.reply_kind) the vendors answer with.
SOURCES = {
    "responses": RECORDED / "mirascope" / "openai_responses_gpt4o_12_citations_duplicates.json",
    "generate_content": RECORDED / "pydantic-ai" / "gemini25pro_weather_grounding_a.json",
    "perplexity": RECORDED / "ruby_llm" / "perplexity_sonar_search_results.json",
    "chat": RECORDED / "pydantic-ai" / "openrouter_chat_completions_url_citation.normalized.json",
    "messages": RECORDED / "ruby_llm" / "anthropic_haiku45_web_search.json",
}
OSC_LINK = HOSTILE_TEXTS[3]


def hostile_body(vendor: str) -> dict[str, Any]:
    kind = vendor_reply_kind(vendor)
    body = hostile_reply(json.loads(SOURCES[kind].read_text(encoding="utf-8")))
    if kind == "generate_content":
        # An enum value google-genai does not know, carried into the response's metadata.
        body["candidates"][0]["finishReason"] = OSC_LINK
    if vendor == "anthropic":
        # One text block (the one that cites), so the answer is the hostile text once.
        texts = [block for block in body["content"] if block.get("type") == "text"]
        kept = next(block for block in texts if block.get("citations"))
        body["content"] = [b for b in body["content"] if b.get("type") != "text" or b is kept]
    return body


def encoded(vendor: str) -> bytes:
    return json.dumps(hostile_body(vendor)).encode()


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as running:
        yield running


@pytest.fixture
def cli_environment(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    """The CLI's settings come from the environment: point them at the emulator."""
    monkeypatch.setenv("OPENAI_BASE_URL", emulator.openai_base_url)
    monkeypatch.setenv("GROUNDING_ROUTER_VERTEX_BASE_URL", emulator.vertex_base_url)
    monkeypatch.setenv("GROUNDING_ROUTER_GEMINI_BASE_URL", emulator.gemini_base_url)
    monkeypatch.setenv("PERPLEXITY_BASE_URL", emulator.perplexity_base_url)
    monkeypatch.setenv("OPENROUTER_BASE_URL", emulator.openrouter_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", emulator.anthropic_base_url)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "hostile")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("COLUMNS", "200")
    return emulator


@pytest.fixture
def warnings_shown() -> Iterator[None]:
    """Warnings displayed, as outside the test suite, instead of raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        yield


def assert_neutralised(output: str) -> None:
    assert unsafe_characters(output) == []
    assert "\x1b" not in output


@pytest.mark.usefixtures("warnings_shown")
@pytest.mark.parametrize("vendor", VENDORS)
def test_route_table_output(
    vendor: str, cli_environment: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """route prints the answer, queries and citation table without a single escape."""
    cli_environment.enqueue_reply(vendor, encoded(vendor))
    code = main(["route", "--vendor", vendor, "--model", MODELS[vendor], "--grounded", "News?"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert_neutralised(out + err)
    for word in VISIBLE_WORDS:
        assert word in out
    assert "[bold red]markup[/]" in out  # rich markup printed as text, not applied


@pytest.mark.usefixtures("warnings_shown")
@pytest.mark.parametrize("vendor", VENDORS)
def test_route_json_output(
    vendor: str, cli_environment: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """route --json-output escapes every control character and still holds the exact text."""
    cli_environment.enqueue_reply(vendor, encoded(vendor))
    argv = ["route", "--vendor", vendor, "--model", MODELS[vendor], "--grounded", "News?"]
    code = main([*argv, "--json-output"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert_neutralised(out + err)
    assert json.loads(out)["content"] == " ".join(HOSTILE_TEXTS).replace("\ud800", "\ufffd")


def test_unreadable_reply_error_is_neutralised(
    cli_environment: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reply with no answer, whose error quotes a hostile finish reason, prints cleanly."""
    body = hostile_body("vertex")
    body["candidates"][0]["content"]["parts"] = []
    cli_environment.enqueue_reply("vertex", json.dumps(body).encode())
    code = main(["route", "--vendor", "vertex", "--model", MODELS["vertex"], "--grounded", "Q"])
    out, err = capsys.readouterr()
    assert code == 6  # the provider's reply could not be used
    assert_neutralised(out + err)
    assert "returned no answer text" in err
    assert "Official source" in err


@pytest.mark.usefixtures("warnings_shown")
def test_demo_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """demo, its emulator replaying hostile replies, prints every step neutralised."""
    replay = tmp_path / "replay"
    replay.mkdir()
    for vendor in VENDORS:
        (replay / f"{vendor}.json").write_bytes(encoded(vendor))
    real_emulator = router.emulator.Emulator

    def replaying(**options: Any) -> Emulator:
        return real_emulator(replay=replay, **options)

    monkeypatch.setattr(router.emulator, "Emulator", replaying)
    monkeypatch.setenv("COLUMNS", "200")
    main(["demo"])
    out, err = capsys.readouterr()
    assert_neutralised(out + err)
    assert "headline" in out


def test_als_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """als, over a batch file whose groups, domains and errors are hostile, prints them clean."""
    rows = []
    for number, text in enumerate(HOSTILE_TEXTS):
        request = {"vendor": "openai", "model": f"gpt-5 {text}", "user_location": {"country": text}}
        citation = {
            "provider": "openai",
            "url": "https://example.com/",
            "source_domain": f"{text}.example",
            "raw": {},
        }
        response = {"vendor": "openai", "model": "gpt-5", "citations": [citation]}
        rows.append(
            {"request_id": f"r{number}", "ok": True, "request": request, "response": response}
        )
        error = {"type": text, "reason": text, "message": text}
        rows.append({"request_id": f"e{number}", "ok": False, "request": request, "error": error})
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["als", str(path), "--by", "model,country"]) == 0
    assert main(["als", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert_neutralised(out + err)
    assert "headline" in out


@pytest.mark.usefixtures("warnings_shown")
def test_batch_summary_output(
    cli_environment: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """batch over hostile replies prints a clean summary and writes every row."""
    source = tmp_path / "in.jsonl"
    requests = [
        {
            "request_id": f"q{number}",
            "vendor": vendor,
            "model": MODELS[vendor],
            "messages": [{"role": "user", "content": f"Question {number}"}],
            "grounded": True,
        }
        for number, vendor in enumerate(VENDORS * 2)
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in requests), encoding="utf-8")
    for vendor in VENDORS * 2:
        cli_environment.enqueue_reply(vendor, encoded(vendor))
    output = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(output), "--no-progress", "--concurrency", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert_neutralised(out + err)
    assert len(output.read_text(encoding="utf-8").splitlines()) == len(requests)


def searched_but_uncited(vendor: str) -> dict[str, Any]:
    """A hostile reply that searched and cites nothing: it brings the [CITATIONS] warning."""
    body = hostile_body(vendor)
    kind = vendor_reply_kind(vendor)
    if kind == "chat":
        body["id"] = OSC_LINK
        body["choices"][0]["message"]["annotations"] = []
        body["usage"]["server_tool_use_details"] = {"web_search_requests": 1}
    elif kind == "perplexity":
        body["id"] = OSC_LINK
        body["citations"] = list(HOSTILE_TEXTS)
        body["search_results"] = [{"title": text, "url": text} for text in HOSTILE_TEXTS]
    elif kind == "responses":
        body["id"] = OSC_LINK
        for item in body["output"]:
            if item.get("type") == "web_search_call":
                item["action"] = {"type": "search", "query": " ".join(HOSTILE_TEXTS)}
            for part in item.get("content") or []:
                part["annotations"] = []
    elif vendor == "anthropic":
        body["id"] = OSC_LINK
        for block in body["content"]:
            if block.get("type") == "server_tool_use":
                block["input"] = {"query": " ".join(HOSTILE_TEXTS)}
            elif block.get("type") == "web_search_tool_result":
                block["content"] = []
            block.pop("citations", None)
    else:
        body["responseId"] = OSC_LINK
        grounding = body["candidates"][0]["groundingMetadata"]
        for key in ("groundingChunks", "groundingSupports"):
            grounding.pop(key, None)
        grounding.update({text: [] for text in HOSTILE_TEXTS})
    return body


@pytest.mark.usefixtures("warnings_shown")
@pytest.mark.parametrize("log_json", [False, True], ids=["console", "json"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_forensic_and_citation_warning_logs_are_neutralised(
    vendor: str,
    log_json: bool,
    cli_environment: Emulator,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With DEBUG_GROUNDING, reply ids, finish reasons and the [CITATIONS] warning log cleanly."""
    monkeypatch.setenv("DEBUG_GROUNDING", "true")
    cli_environment.enqueue_reply(vendor, json.dumps(searched_but_uncited(vendor)).encode())
    flags = ["--log-json"] if log_json else []
    argv = [*flags, "route", "--vendor", vendor, "--model", MODELS[vendor], "--grounded", "Q?"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[CITATIONS]" in err
    assert_neutralised(out + err)


@pytest.mark.usefixtures("warnings_shown")
def test_citation_warning_at_the_default_level_names_a_hostile_model_cleanly(
    cli_environment: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A batch line whose model carries escapes logs its [CITATIONS] warning neutralised."""
    source = tmp_path / "in.jsonl"
    rows = [
        {
            "request_id": f"m{number}",
            "vendor": vendor,
            "model": f"{MODELS[vendor]}\x1b]0;window title\x07\x1b[2J\x9b31m\u202e\u200f",
            "messages": [{"role": "user", "content": f"Question {number}"}],
            "grounded": True,
        }
        for number, vendor in enumerate(VENDORS)
    ]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    for vendor in VENDORS:
        cli_environment.enqueue_reply(vendor, json.dumps(searched_but_uncited(vendor)).encode())
    output = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(output), "--no-progress", "--concurrency", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err.count("[CITATIONS]") == len(VENDORS), err
    assert_neutralised(out + err)
