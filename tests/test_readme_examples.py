"""The README's Python examples run as printed: each block is written to a file and run as a
script in a fresh interpreter, with the emulator's variables set as the README's emulator section
shows, in a working directory holding the files the block reads."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from router.emulator import Emulator
from support.emulated import cli_environment, grounded_request

ROOT = Path(__file__).resolve().parents[1]
RECORDED = Path(__file__).parent / "data" / "recorded"
# The smallest PDF a reader might hand the Anthropic documents example.
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n%%EOF\n"
CITATION_LINE = re.compile(r"^(\d+) \S+ https?://\S+ (True|False)$")


def every_example() -> list[str]:
    """Every ```python block of the README and of the reference pages under docs/."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL)


def readme_example(marker: str) -> str:
    """The README's ```python block that contains ``marker``."""
    chosen = [block for block in every_example() if marker in block]
    assert len(chosen) == 1, f"README: {len(chosen)} python examples contain {marker!r}"
    return chosen[0]


def run_script(source: str, emulator: Emulator, workdir: Path) -> str:
    """Run ``source`` as ``python example.py`` in ``workdir`` against ``emulator``; its stdout."""
    script = workdir / "example.py"
    script.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=workdir,
        env={**cli_environment(emulator), "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_every_example_is_a_script_of_its_own() -> None:
    """No block needs top-level ``await``: each compiles as a module on its own."""
    for block in every_example():
        compile(block, "README.md", "exec")


def test_quick_start_routes_with_required_grounding(emulator: Emulator, tmp_path: Path) -> None:
    """The first example: a grounded REQUIRED call to Vertex, its answer and ranked citations."""
    lines = run_script(readme_example("from router import route, LLMRequest"), emulator, tmp_path)
    printed = lines.splitlines()
    ranks = [int(found.group(1)) for line in printed if (found := CITATION_LINE.match(line))]
    assert printed[0]
    assert ranks
    assert ranks == sorted(ranks)


def test_service_example_uses_one_router_from_the_environment(
    emulator: Emulator, tmp_path: Path
) -> None:
    """``async with Router.from_env()`` and ``aroute``, run by ``asyncio.run``."""
    printed = run_script(readme_example("async with Router.from_env()"), emulator, tmp_path)
    vendor, count, word = printed.split()
    assert (vendor, word) == ("openai", "citations")
    assert int(count) > 0


def test_stream_example_ends_with_the_response(emulator: Emulator, tmp_path: Path) -> None:
    """The streaming loop prints the text as it comes and ends with the response's citations."""
    printed = run_script(readme_example("for event in stream(request)"), emulator, tmp_path)
    *text, last = printed.rstrip("\n").splitlines()
    assert "".join(text).strip()
    assert re.fullmatch(r"[1-9]\d* citations", last)


def test_extract_example_reads_a_stored_stream(emulator: Emulator, tmp_path: Path) -> None:
    """``extract("vertex", ...)`` over a recorded Vertex stream saved as reply.sse.txt."""
    recording = RECORDED / "pydantic-ai" / "vertex_gemini25flash_stream_web_domain.sse.txt"
    shutil.copy(recording, tmp_path / "reply.sse.txt")
    printed = run_script(readme_example('extract("vertex"'), emulator, tmp_path).rstrip()
    *_, count, warnings = printed.rsplit(" ", 2)
    assert warnings == "[]"
    assert int(count) > 0


def readme_output_after(marker: str) -> str:
    """The README's ```text block that follows the ```python block containing ``marker``."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    readme = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    example = readme_example(marker)
    rest = readme[readme.index(example) + len(example) :]
    found = re.search(r"^```text\n(.*?)^```$", rest, flags=re.MULTILINE | re.DOTALL)
    assert found is not None, f"README: no output shown after the example with {marker!r}"
    return found.group(1)


def test_grounding_example_prints_the_report_shown(emulator: Emulator, tmp_path: Path) -> None:
    """The grounding policy example prints exactly the report the README shows after it."""
    marker = '"grounding_policy": {"min_coverage"'
    assert run_script(readme_example(marker), emulator, tmp_path) == readme_output_after(marker)


def test_own_scorer_example_plugs_into_verify(emulator: Emulator, tmp_path: Path) -> None:
    """The own-scorer example verifies a fresh response; the report names the scorer."""
    printed = run_script(readme_example("def same_numbers("), emulator, tmp_path)
    name, supported, unsupported = printed.split()
    assert name == "same_numbers"
    assert int(supported) + int(unsupported) > 0


def test_fan_out_example_aggregates_two_providers(emulator: Emulator, tmp_path: Path) -> None:
    """``route_many`` to OpenAI and Vertex, with models from the registry's defaults."""
    printed = run_script(readme_example("from router import route_many"), emulator, tmp_path)
    assert printed.splitlines()[-1].startswith("['openai', 'vertex'] ")


def test_batch_example_runs_every_line_through_the_local_engine(
    emulator: Emulator, tmp_path: Path
) -> None:
    """``run_batch`` with ``engine=LocalEngine()`` writes one row per line and prints the count."""
    questions = ["capital of France", "tallest mountain", "longest river"]
    (tmp_path / "requests.jsonl").write_text(
        "".join(
            json.dumps(grounded_request("openai", question, request_id=f"q{number}")) + "\n"
            for number, question in enumerate(questions)
        )
    )
    printed = run_script(readme_example("engine=LocalEngine()"), emulator, tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted(row["request_id"] for row in rows) == ["q0", "q1", "q2"]
    assert all(row["ok"] for row in rows)
    assert printed.splitlines()[-1] == "3 {'ok': 3}"


def test_anthropic_documents_example(emulator: Emulator, tmp_path: Path) -> None:
    """The document parts (text, a PDF, custom chunks) reach Anthropic as its document blocks."""
    (tmp_path / "q3-report.pdf").write_bytes(PDF)
    sent_before = len(emulator.requests)
    printed = run_script(readme_example('"type": "document"'), emulator, tmp_path)
    sent = emulator.requests[sent_before:]
    assert [request.api for request in sent] == ["anthropic"]
    content = sent[0].json["messages"][0]["content"]
    assert [part["type"] for part in content] == ["text", "document", "document", "document"]
    assert [part["source"]["type"] for part in content[1:]] == ["text", "base64", "content"]
    assert content[2]["source"]["data"] == base64.b64encode(PDF).decode()
    assert "document:" in printed


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


def test_fallback_example_answers_from_the_next_vendor(emulator: Emulator, tmp_path: Path) -> None:
    """The fallback example, with OpenAI skipping the search: Anthropic answers, both listed."""
    source = readme_example("fallbacks=[")
    faulted = source.replace(
        "Current ECB deposit rate?", "Current ECB deposit rate? [[emulator:fault=no_search@openai]]"
    )
    assert faulted != source
    printed = run_script(faulted, emulator, tmp_path).splitlines()
    assert printed[0].startswith("anthropic claude-sonnet-4-6 ")
    assert printed[1].startswith("openai failed not_invoked ")
    assert printed[2].startswith("anthropic answered None ")


def test_cache_example_serves_the_second_call_from_the_file(
    emulator: Emulator, tmp_path: Path
) -> None:
    """The cache example: the second call is a hit costing nothing, the file is written."""
    printed = run_script(readme_example('cache="responses.sqlite"'), emulator, tmp_path)
    assert printed.split() == ["hit", "0.0", "True"]
    assert (tmp_path / "responses.sqlite").exists()
