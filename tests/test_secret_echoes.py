"""Providers and proxies that echo the credential back: nothing the router lets out carries it.

Each reply of ``tests/data/secret_echoes.json`` quotes the sentinel key (OpenAI) or access
token (Vertex) the request was sent with: whole, cut to a run of a dozen characters,
percent-encoded or JSON-escaped, in an error message, a status or code field, an HTML page,
the start of a body that cannot be parsed, or a malformed HTTP reply (``raw`` rows). The
router's error keeps its type and reason, through ``route()`` and ``aroute()`` alike, and
neither its message, its fields nor ``to_dict()`` hold any run of the secret (the secret watch
checks every 8-character run, in every spelling); nor do the CLI's stderr or a batch row.

A provider that quotes the key in a successful answer (the emulator answers a question about
the key with claims, queries and source titles that hold it) hands the caller a response, or
stream events, with the key cut out, on every vendor through ``route``, ``aroute``, ``stream``
and ``astream``; the span attributes (queries recorded with ``trace_content``) hold none either.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import router.errors as router_errors
from adapters.registry import PROVIDERS
from router.cli import main
from router.emulated import emulated_environment
from router.emulator import Emulator
from router.errors import ResponseParseError, RouterError
from router.router import UnifiedLLMAdapter
from router.streaming import CitationDelta, SearchStarted, StreamEvent, TextDelta
from router.text.redaction import REDACTED
from router.types import LLMResponse
from support.emulated import emulator_settings
from support.otel import in_memory_provider
from support.replies import reply_body
from support.secret_watch import SENTINEL_SECRETS, sentinel_findings, vendor_sentinel

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "secret_echoes.json").read_text(encoding="utf-8")
)
# Each vendor's sentinel: the secret of the first of its row's settings the sentinel
# environment holds (support.secret_watch).
SECRETS = {
    vendor: vendor_sentinel(vendor)
    for vendor, row in PROVIDERS.items()
    if any(name in SENTINEL_SECRETS for name in row.settings)
}
VENDORS = list(PROVIDERS)
CALLS = ("route", "aroute")

SPELLINGS: dict[str, Callable[[str], str]] = {
    "secret": lambda secret: secret,
    "secret_quoted": lambda secret: quote(secret, safe=""),
    "secret_pct": lambda secret: "".join(f"%{byte:02X}" for byte in secret.encode()),
    "secret_u": lambda secret: "".join(f"\\u{ord(char):04x}" for char in secret),
    "secret_u_in_json": lambda secret: "".join(f"\\\\u{ord(char):04x}" for char in secret),
    "secret_run": lambda secret: secret[-16:-4],
}


def secret_of(vendor: str) -> str:
    if vendor not in SECRETS:
        pytest.skip(
            f"{vendor}: no sentinel credential; the provider's package must add its credential "
            "setting to the sentinel environment of tests/support/secret_watch.py"
        )
    return SECRETS[vendor]


def echo(row: dict[str, Any], vendor: str) -> bytes:
    """The row's reply for ``vendor`` with every placeholder spelled out."""
    if vendor not in row:
        pytest.skip(f"{vendor}: secret_echoes.json has no error body for it (row {row['id']})")
    text: str = row[vendor]
    secret = secret_of(vendor)
    for name, spell in SPELLINGS.items():
        text = text.replace("{" + name + "}", spell(secret))
    return text.encode()


def serve(emulator: Emulator, row: dict[str, Any], vendor: str) -> None:
    body = echo(row, vendor)
    if row["content_type"] == "raw":
        emulator.enqueue_raw(vendor, body)  # type: ignore[arg-type]
    else:
        emulator.enqueue_reply(
            vendor,  # type: ignore[arg-type]
            body,
            status=row["status"],
            content_type=row["content_type"],
        )


def request_to(vendor: str, question: str, **extra: Any) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
        **extra,
    }


def outcome(router: UnifiedLLMAdapter, request: dict[str, Any], call: str) -> RouterError:
    send: Callable[[], object] = (
        (lambda: router.route(request))
        if call == "route"
        else (lambda: asyncio.run(router.aroute(request)))
    )
    with pytest.raises(RouterError) as caught:
        send()
    return caught.value


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    # One attempt: each row's reply is served once, and a retry would get a normal answer.
    with UnifiedLLMAdapter(emulator_settings(emulator, max_attempts=1)) as built:
        yield built


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_echoed_secret_stays_out_of_the_error(
    row: dict[str, Any], vendor: str, call: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """The error keeps its type and reason and holds no trace of the echoed credential."""
    serve(emulator, row, vendor)
    error = outcome(router, request_to(vendor, f"echo test {row['id']} {call}"), call)
    assert type(error) is getattr(router_errors, row["error"]), error
    assert error.reason == row["reason"]
    assert sentinel_findings(error) == []
    assert sentinel_findings(error.to_dict()) == []


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("vendor", VENDORS)
def test_invalid_json_answer_starting_with_the_secret_is_redacted(
    vendor: str, call: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """The invalid_json error quotes the answer's start, with the credential cut out."""
    secret = secret_of(vendor)
    answer = f"{secret[-30:]} is what you sent; {quote(secret, safe='')}"
    emulator.enqueue_reply(vendor, json.dumps(reply_body(vendor, answer)).encode())  # type: ignore[arg-type]
    request = request_to(vendor, f"json echo {call}", json_mode=True, grounded=False)
    error = outcome(router, request, call)
    assert isinstance(error, ResponseParseError)
    assert error.reason == "invalid_json"
    assert sentinel_findings(error) == []


ECHO_ALL = next(row for row in ROWS if row["id"] == "every-field-every-encoding")
MALFORMED = next(row for row in ROWS if row["id"] == "malformed-status-line")


@pytest.fixture
def cli_environment(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    # Every vendor's endpoint at the emulator; the credentials stay the sentinels.
    for name, value in emulated_environment(emulator).items():
        if name.endswith("BASE_URL"):
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "echo")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "1")
    return emulator


@pytest.mark.parametrize("log_json", [False, True], ids=["console", "json"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_cli_stderr_holds_no_trace_of_the_echo(
    vendor: str, log_json: bool, cli_environment: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """route prints the error (and its log lines) without any run of the credential."""
    serve(cli_environment, ECHO_ALL, vendor)
    flags = ["--log-json", "--log-level", "debug"] if log_json else ["--log-level", "debug"]
    argv = [*flags, "route", "--vendor", vendor, "--model", PROVIDERS[vendor].default_model]
    code = main([*argv, "--grounded", "--json-output", "cli echo"])
    out, err = capsys.readouterr()
    assert code == 4  # a provider error
    assert "ProviderRequestError" in err
    assert sentinel_findings(out + err) == []


@pytest.mark.parametrize("vendor", VENDORS)
def test_batch_rows_hold_no_trace_of_the_echo(
    vendor: str, cli_environment: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A batch over echoing replies (async path) writes error rows without the credential."""
    rows = [ECHO_ALL, MALFORMED]
    source = tmp_path / "in.jsonl"
    lines = [request_to(vendor, f"batch echo {n}", request_id=f"e{n}") for n in range(len(rows))]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    for row in rows:
        serve(cli_environment, row, vendor)
    output = tmp_path / "out.jsonl"
    code = main(["batch", str(source), "-o", str(output), "--no-progress", "--concurrency", "1"])
    out, err = capsys.readouterr()
    written = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert code == 0, err
    assert [row["error"]["reason"] for row in written] == ["bad_request", "connection"]
    assert sentinel_findings(output) == []
    assert sentinel_findings(out + err) == []


# -- a key quoted in an answer ---------------------------------------------------------------

MODES = ("route", "aroute", "stream", "astream")


def answer_quoting(router: UnifiedLLMAdapter, request: dict[str, Any], mode: str) -> list[object]:
    """What the caller gets in ``mode``: the response, or each stream event's payload in order."""
    if mode == "route":
        return [router.route(request)]
    if mode == "aroute":
        return [asyncio.run(router.aroute(request))]

    async def collect() -> list[StreamEvent]:
        return [event async for event in router.astream(request)]

    events = list(router.stream(request)) if mode == "stream" else asyncio.run(collect())
    return [event_payload(event) for event in events]


def event_payload(event: StreamEvent) -> object:
    if isinstance(event, TextDelta):
        return event.text
    if isinstance(event, SearchStarted):
        return list(event.queries)
    if isinstance(event, CitationDelta):
        return event.citation
    return event.response


@pytest.fixture
def traced_router(emulator: Emulator) -> Iterator[tuple[UnifiedLLMAdapter, InMemorySpanExporter]]:
    """A router recording queries and citations in its spans (``trace_content``)."""
    provider, exporter = in_memory_provider()
    settings = emulator_settings(emulator, trace_content=True)
    with UnifiedLLMAdapter(settings, tracer_provider=provider) as built:
        yield built, exporter


def span_texts(exporter: InMemorySpanExporter) -> list[str]:
    """Every string the finished spans record: names, attributes, events and theirs."""
    texts: list[str] = []
    for span in exporter.get_finished_spans():
        values: list[Any] = [span.name, *(span.attributes or {}).values()]
        for event in span.events:
            values.extend([event.name, *(event.attributes or {}).values()])
        for value in values:
            texts.extend(str(part) for part in (value if isinstance(value, tuple) else (value,)))
    return texts


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("vendor", VENDORS)
def test_key_quoted_in_an_answer_stays_out_of_what_the_caller_gets(
    vendor: str, mode: str, traced_router: tuple[UnifiedLLMAdapter, InMemorySpanExporter]
) -> None:
    """An answer, its queries and citations quoting the caller's key reach the caller and the
    span attributes with the key cut out, in every vendor and mode."""
    router, exporter = traced_router
    secret = secret_of(vendor)
    # The emulator answers an unknown question about its own words: the key becomes the topic
    # of the answer's claims, its search queries and its sources' titles.
    request = request_to(vendor, f"What is {secret}?")
    received = answer_quoting(router, request, mode)
    response = received[-1]
    assert isinstance(response, LLMResponse)
    assert REDACTED in response.content  # the provider did quote the key
    # Perplexity reports no queries.
    assert not response.web_search_queries or REDACTED in " ".join(response.web_search_queries)
    assert sentinel_findings(received) == []
    if mode in ("stream", "astream"):
        assert "".join(item for item in received if isinstance(item, str)) == response.content
    texts = span_texts(exporter)
    assert any(REDACTED in text for text in texts)
    assert sentinel_findings(texts) == []
