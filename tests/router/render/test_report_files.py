"""``grounding-router report`` and ``--html``: every accepted file, and a page that is one file."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from router.cli import main
from router.emulator import Emulator
from router.render.html import embedded_json, write_report
from router.render.report_input import InputCounts, iter_report_rows, rows_from_record
from support.report_samples import batch_rows, grounded_response, hostile_response

ROOT = Path(__file__).resolve().parents[3]


def _data(page: str) -> dict[str, object]:
    match = re.search(
        r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert match is not None
    loaded: dict[str, object] = json.loads(match.group(1))
    return loaded


def _write_lines(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_batch_output_gives_one_row_per_line(tmp_path: Path) -> None:
    """Answers and failures of a batch file are read in order, with their vendors."""
    source = _write_lines(tmp_path / "out.jsonl", batch_rows(10))
    rows = list(iter_report_rows(source))
    assert [row.request_id for row in rows] == [f"row-{n:05d}" for n in range(10)]
    assert [row.ok for row in rows].count(False) == 2
    assert rows[4].error is not None
    assert rows[4].error["reason"] == "no_citations"
    assert rows[1].vendor == "vertex"


def test_a_pretty_printed_response_is_one_row(tmp_path: Path) -> None:
    """``route --json-output`` (indented JSON) is read as one answer."""
    source = tmp_path / "route.json"
    source.write_text(json.dumps(grounded_response(), indent=2), encoding="utf-8")
    (row,) = iter_report_rows(source)
    assert (row.request_id, row.vendor, row.ok) == ("zugspitze", "vertex", True)


def test_fanout_rows_and_stream_events_are_read() -> None:
    """A fan-out batch row gives a row per provider; a stream's completed event one answer."""
    fanout = {
        "request_id": "q1",
        "ok": True,
        "fanout": {"providers": {"openai": {"ok": True, "response": grounded_response()}}},
    }
    kind, rows = rows_from_record(fanout)
    assert kind == "batch"
    assert [row.request_id for row in rows] == ["q1/openai"]
    assert rows_from_record({"event": "text", "text": "x"}) == ("stream", [])
    kind, rows = rows_from_record({"event": "completed", "response": grounded_response()})
    assert kind == "stream"
    assert len(rows) == 1


def test_unreadable_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    """A broken line and a record of no known shape are counted; the rest is read."""
    source = tmp_path / "mixed.jsonl"
    lines = [json.dumps(batch_rows(1)[0]), "{not json", json.dumps({"what": 1}), ""]
    source.write_text("\n".join(lines), encoding="utf-8")
    counts = InputCounts()
    assert len(list(iter_report_rows(source, counts))) == 1
    assert (counts.unreadable_lines, counts.unknown_records) == (1, 1)


def test_a_broken_first_line_does_not_hide_the_rest(tmp_path: Path) -> None:
    """Batch output whose first line was cut is still read line by line."""
    source = tmp_path / "cut.jsonl"
    lines = ['{"request_id": "cut', *(json.dumps(row) for row in batch_rows(3))]
    source.write_text("\n".join(lines), encoding="utf-8")
    counts = InputCounts()
    assert [row.request_id for row in iter_report_rows(source, counts)] == [
        "row-00000",
        "row-00001",
        "row-00002",
    ]
    assert counts.unreadable_lines == 1


def test_report_command_writes_one_self_contained_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The page holds every row, its own style and script, and refers to nothing outside."""
    source = _write_lines(tmp_path / "out.jsonl", batch_rows(40))
    target = tmp_path / "report.html"
    assert main(["report", str(source), "-o", str(target)]) == 0
    assert f"wrote {target}: 40 row(s)" in capsys.readouterr().out
    page = target.read_text(encoding="utf-8")
    assert len(_data(page)["rows"]) == 40  # type: ignore[arg-type]
    assert not re.search(r"""\b(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page
    assert "url(" not in page


def test_the_csp_allows_exactly_the_pages_own_style_and_script(tmp_path: Path) -> None:
    """The policy names the SHA-256 of the inline style and script, and no other source."""
    page = write_report(rows_from_record(grounded_response())[1], title="t")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    assert style is not None
    assert script is not None

    def digest(text: str) -> str:
        return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert html.unescape(policy.group(1)) == (
        f"default-src 'none'; script-src '{digest(script.group(1))}'; "
        f"style-src '{digest(style.group(1))}'; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )


def test_embedded_json_cannot_close_its_element() -> None:
    """``</script>``, ``<!--`` and ``&`` are written as escapes and read back unchanged."""
    value = {"t": "</script><script>x()</script><!-- & \u2028 ]]>"}
    text = embedded_json(value)
    assert "<" not in text
    assert ">" not in text
    assert "&" not in text
    assert json.loads(text) == value


def test_hostile_strings_are_escaped_in_the_markup(tmp_path: Path) -> None:
    """In the written file no hostile string appears raw, and no bidi or control character."""
    page = write_report(rows_from_record(hostile_response())[1], title="<b>title</b>")
    assert "<script>window" not in page
    assert "</style><style>" not in page
    assert "<b>title</b>" not in page
    assert "&lt;b&gt;title&lt;/b&gt;" in page
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", page)


def test_a_file_with_no_rows_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty or unknown file gives exit code 2 and says why."""
    source = tmp_path / "empty.jsonl"
    source.write_text("{}\n", encoding="utf-8")
    assert main(["report", str(source), "-o", str(tmp_path / "r.html")]) == 2
    assert "holds no answers or failures" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.jsonl")]) == 2


def test_route_html_writes_the_answer_report(
    emulator: Emulator,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``route --html FILE`` prints as usual and writes the answer's page with its sources."""
    monkeypatch.setenv("OPENAI_BASE_URL", emulator.openai_base_url)
    target = tmp_path / "route.html"
    argv = ["route", "--vendor", "openai", "--model", "gpt-5", "--grounded", "--no-links"]
    assert main([*argv, "--request-id", "r-1", "--html", str(target), "Capital of France?"]) == 0
    captured = capsys.readouterr()
    assert f"report written to {target}" in captured.err
    (row,) = _data(target.read_text(encoding="utf-8"))["rows"]  # type: ignore[misc]
    assert row["id"] == "r-1"
    assert row["sources"]
    assert all(source["href"].startswith("https://") for source in row["sources"])


@pytest.mark.parametrize(
    ("statement", "unloaded"),
    [
        ("import router.cli; router.cli.build_parser()", ("jinja2", "markupsafe")),
        ("import router.render.html, router.render.terminal_block", ("jinja2", "rich")),
    ],
)
def test_rendering_loads_no_template_or_terminal_library_on_import(
    statement: str, unloaded: tuple[str, ...]
) -> None:
    """Importing the CLI or the render modules leaves jinja2 (and rich) unloaded."""
    code = f"import sys; {statement}; print(sorted(m for m in {unloaded!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"
