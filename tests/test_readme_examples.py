"""The README's Python examples run as printed, against the emulator, through the process-wide
router that ``route()`` and friends build from the environment."""

from __future__ import annotations

import ast
import asyncio
import base64
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from router import LLMResponse
from router import router as process_router
from router.emulator import Emulator
from support.emulated import cli_environment, grounded_request

ROOT = Path(__file__).resolve().parents[1]
RECORDED = Path(__file__).parent / "data" / "recorded"
# The smallest PDF a reader might pass as ``pdf_base64`` in the Anthropic documents example.
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n%%EOF\n"


def readme_example(marker: str) -> str:
    """The README's ```python block that contains ``marker``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", readme, flags=re.MULTILINE | re.DOTALL)
    chosen = [block for block in blocks if marker in block]
    assert len(chosen) == 1, f"README: {len(chosen)} python examples contain {marker!r}"
    return chosen[0]


def run_example(source: str, namespace: dict[str, Any]) -> None:
    """Run a README example as a reader's script would; top-level ``await`` runs on a loop."""
    code = compile(source, "README.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    pending = eval(code, namespace)  # the project's own README examples, nothing else
    if pending is not None:
        asyncio.run(pending)


@pytest.fixture
def reader(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[dict[str, Any]]:
    """A reader's session: the emulator's variables set, a working directory of their own and
    no process-wide router yet; the namespace the examples share, as in one script."""
    for name, value in cli_environment(emulator).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(process_router, "_default_router", None)
    yield {"__name__": "__readme__"}
    if process_router._default_router is not None:
        process_router._default_router.close()


def test_quick_start_routes_with_required_grounding(
    reader: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The first example: a grounded REQUIRED call to Vertex, its answer and citations printed."""
    run_example(readme_example("from router import route, LLMRequest"), reader)
    response: LLMResponse = reader["response"]
    assert response.grounded_effective
    assert response.request_id == "q-001"
    printed = capsys.readouterr().out.splitlines()
    assert printed[0]
    assert response.content.startswith(printed[0])
    assert [line.split()[0] for line in printed[-len(response.citations) :]] == [
        str(citation["rank"]) for citation in response.citations
    ]


def test_service_example_uses_one_router_from_the_environment(reader: dict[str, Any]) -> None:
    """``async with Router.from_env()`` and ``aroute`` on a request of the reader's own."""
    reader["request"] = {
        "vendor": "openai",
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "Who won the 2026 Champions League final?"}],
        "grounded": True,
        "grounding_mode": "REQUIRED",
    }
    run_example(readme_example("async with Router.from_env() as router"), reader)
    assert reader["response"].citations
    assert reader["response"].vendor == "openai"


def test_stream_example_ends_with_the_response(
    reader: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The streaming loop prints the text as it comes and ends with the whole response."""
    run_example(readme_example("for event in stream(request)"), reader)
    response: LLMResponse = reader["response"]
    assert response.citations
    assert response.content in capsys.readouterr().out


def test_extract_example_reads_a_stored_stream(reader: dict[str, Any]) -> None:
    """``extract("vertex", ...)`` over a recorded Vertex stream saved as reply.sse.txt."""
    recording = RECORDED / "pydantic-ai" / "vertex_gemini25flash_stream_web_domain.sse.txt"
    shutil.copy(recording, "reply.sse.txt")
    run_example(readme_example('extract("vertex"'), reader)
    assert reader["response"].citations
    assert reader["response"].metadata["warnings"] == []


def readme_output_after(marker: str) -> str:
    """The README's ```text block that follows the ```python block containing ``marker``."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = readme_example(marker)
    rest = readme[readme.index(example) + len(example) :]
    found = re.search(r"^```text\n(.*?)^```$", rest, flags=re.MULTILINE | re.DOTALL)
    assert found is not None, f"README: no output shown after the example with {marker!r}"
    return found.group(1)


def test_grounding_example_prints_the_report_shown(
    reader: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The grounding policy example prints exactly the report the README shows after it."""
    with capture_logs():  # the library's own log events are not the example's output
        run_example(readme_example('"grounding_policy": {"min_coverage"'), reader)
    assert capsys.readouterr().out == readme_output_after('"grounding_policy": {"min_coverage"')
    assert reader["response"].grounding is reader["report"]


def test_own_scorer_example_plugs_into_verify(
    reader: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The own-scorer example runs on the policy example's response; the report names it."""
    run_example(readme_example('"grounding_policy": {"min_coverage"'), reader)
    capsys.readouterr()
    run_example(readme_example("def same_numbers("), reader)
    checked = reader["checked"]
    assert checked.scorer == "same_numbers"
    assert capsys.readouterr().out == (f"same_numbers {checked.supported} {checked.unsupported}\n")
    assert checked.supported + checked.unsupported > 0


def test_fan_out_example_aggregates_two_providers(reader: dict[str, Any]) -> None:
    """``route_many`` to OpenAI and Vertex, with models from the registry's defaults."""
    run_example(readme_example("from router import route_many"), reader)
    result = reader["result"]
    assert set(result.responses) == {"openai", "vertex"}
    assert result.aggregate.entries
    assert [pair["providers"] for pair in result.aggregate.agreement] == [["openai", "vertex"]]


def test_batch_example_runs_every_line_through_the_local_engine(
    reader: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """``run_batch`` with ``engine=LocalEngine()`` writes one row per line and prints the count."""
    questions = ["capital of France", "tallest mountain", "longest river"]
    Path("requests.jsonl").write_text(
        "".join(
            json.dumps(grounded_request("openai", question, request_id=f"q{number}")) + "\n"
            for number, question in enumerate(questions)
        )
    )
    run_example(readme_example("engine=LocalEngine()"), reader)
    rows = [json.loads(line) for line in Path("results.jsonl").read_text().splitlines()]
    assert sorted(row["request_id"] for row in rows) == ["q0", "q1", "q2"]
    assert all(row["ok"] for row in rows)
    assert reader["summary"].done == 3
    assert capsys.readouterr().out.splitlines()[-1] == "3 {'ok': 3}"


def test_anthropic_documents_example(reader: dict[str, Any], emulator: Emulator) -> None:
    """The document parts (text, a PDF, custom chunks) reach Anthropic as its document blocks."""
    reader["pdf_base64"] = base64.b64encode(PDF).decode()
    run_example(readme_example("from router import route, LLMRequest"), reader)
    sent_before = len(emulator.requests)
    run_example(readme_example('"type": "document"'), reader)
    sent = emulator.requests[sent_before:]
    assert [request.api for request in sent] == ["anthropic"]
    content = sent[0].json["messages"][0]["content"]
    assert [part["type"] for part in content] == ["text", "document", "document", "document"]
    assert [part["source"]["type"] for part in content[1:]] == ["text", "base64", "content"]


def test_tracing_example_traces_every_route(emulator: Emulator, tmp_path: Path) -> None:
    """Set up as the README shows, a plain ``route()`` prints its span (in a fresh process,
    since OpenTelemetry's global tracer provider can be set only once)."""
    script = tmp_path / "traced.py"
    script.write_text(
        readme_example("trace.set_tracer_provider(provider)")
        + "\nfrom router import route\n"
        + 'route({"vendor": "openai", "model": "gpt-4o", "grounded": True,'
        + ' "messages": [{"role": "user", "content": "Capital of France?"}]})\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env={**cli_environment(emulator), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"name": "chat gpt-4o"' in done.stdout
    assert '"grounding_router.grounded_effective": true' in done.stdout


def test_fallback_example_answers_from_the_next_vendor(
    reader: dict[str, Any], capsys: pytest.CaptureFixture[str], emulator: Emulator
) -> None:
    """The fallback example, with OpenAI skipping the search: Anthropic answers, both listed."""
    source = readme_example("fallbacks=[")
    faulted = source.replace(
        "Current ECB deposit rate?", "Current ECB deposit rate? [[emulator:fault=no_search@openai]]"
    )
    run_example(faulted, reader)
    response: LLMResponse = reader["response"]
    assert response.vendor == "anthropic"
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("anthropic claude-sonnet-4-6 ")
    assert printed[1].startswith("openai failed not_invoked ")
    assert printed[2].startswith("anthropic answered None ")


def test_cache_example_serves_the_second_call_from_the_file(
    reader: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache example: the second call is a hit costing nothing, the file is written."""
    run_example(readme_example('cache="responses.sqlite"'), reader)
    assert capsys.readouterr().out.split() == ["hit", "0.0", "True"]
    assert Path("responses.sqlite").exists()
