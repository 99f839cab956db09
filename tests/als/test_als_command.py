"""``grounding-router als``, run in-process over the hand-written batch output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from router.cli import main
from support.charts import hide_matplotlib

BATCH = Path(__file__).parents[1] / "data" / "als" / "batch_output.jsonl"


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich lays tables out for 200 columns, so cells are not folded mid-number."""
    monkeypatch.setenv("COLUMNS", "200")


def test_table_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    """The default output shows every group, own-ccTLD and redirect shares, and failures."""
    assert main(["als", str(BATCH), "--top", "6"]) == 0
    out = capsys.readouterr().out
    assert "ALS report: 10 rows (6 answered, 4 failed), grouped by vendor, model, country" in out
    assert "skipped 1 line that is not a batch output row" in out
    assert ".de 57.1%" in out  # openai/gpt-5/DE: 4 of 7
    assert ".uk 66.7%" in out  # vertex/GB: co.uk and gov.uk, 2 of 3
    assert "50.0%" in out  # vertex/DE redirect-only: 2 of 4
    assert "bücher.de (xn--bcher-kva.de)" in out  # the sixth of openai/gpt-5/DE's domains
    assert "public suffixes (co.uk and gov.uk apart" in out
    assert (
        "vertex · gemini-2.5-flash · GB: 2 failed: GroundingRequiredFailedError 1 "
        "(no_citations 1), ProviderTransientError 1"
    ) in out
    assert "no vendor · no model · no country: 1 failed: RequestValidationError 1" in out


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints the report as JSON, with --top cutting the lists."""
    assert main(["als", str(BATCH), "--json", "--top", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by"] == ["vendor", "model", "country"]
    first = data["groups"][0]
    assert first["key"] == {"vendor": "openai", "model": "gpt-5", "country": "DE"}
    assert first["top_tlds"] == [{"tld": "de", "citations": 4, "share": 0.5714}]
    assert first["top_domains"] == [{"domain": "spiegel.de", "citations": 2, "share": 0.2857}]
    assert first["tld_level"] == "suffix"


def test_json_keeps_internationalised_names_in_ascii(capsys: pytest.CaptureFixture[str]) -> None:
    """JSON keeps the punycode a citation carries; only tables and charts decode it."""
    assert main(["als", str(BATCH), "--json", "--top", "10"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    domains = [entry["domain"] for entry in groups[0]["top_domains"]]
    assert "xn--bcher-kva.de" in domains
    assert "bücher.de" not in json.dumps(domains, ensure_ascii=False)


@pytest.mark.parametrize(
    ("by", "keys"),
    [
        ("vendor", [{"vendor": "openai"}, {"vendor": "vertex"}, {"vendor": None}]),
        ("country", [{"country": c} for c in ("DE", "GB", "RU", None)]),
        ("Country,Vendor", None),
        ("all", [{}]),
    ],
    ids=["vendor", "country", "two-keys", "all"],
)
def test_group_by(
    by: str, keys: list[dict[str, str | None]] | None, capsys: pytest.CaptureFixture[str]
) -> None:
    """--by takes comma-separated keys in any case, or 'all' for one group."""
    assert main(["als", str(BATCH), "--json", "--by", by]) == 0
    data = json.loads(capsys.readouterr().out)
    if keys is None:
        assert data["by"] == ["country", "vendor"]
        assert data["groups"][0]["key"] == {"country": "DE", "vendor": "openai"}
    else:
        assert [group["key"] for group in data["groups"]] == keys


@pytest.mark.parametrize("by", ["region", "vendor,vendor", ","])
def test_bad_group_keys_exit_2(by: str, capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown, repeated or empty --by is a usage error (exit 2)."""
    with pytest.raises(SystemExit) as exited:
        main(["als", str(BATCH), "--by", by])
    assert exited.value.code == 2
    assert "--by" in capsys.readouterr().err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file that does not exist is bad input (exit 2), said on stderr."""
    assert main(["als", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_file_of_no_rows_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file with lines but no batch rows (here, an input file) is bad input (exit 2)."""
    path = tmp_path / "requests.jsonl"
    path.write_text('{"vendor": "openai", "model": "gpt-5", "messages": []}\nnot json\n')
    assert main(["als", str(path)]) == 2
    assert "holds no batch output rows" in capsys.readouterr().err


def test_empty_file_is_an_empty_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An empty output file (a batch with no input) reports zero rows and exits 0."""
    path = tmp_path / "out.jsonl"
    path.write_text("")
    assert main(["als", str(path)]) == 0
    assert "no rows to report" in capsys.readouterr().out


def test_png_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--png writes a chart that opens as a PNG, and the table is still printed."""
    chart = tmp_path / "als.png"
    assert main(["als", str(BATCH), "--png", str(chart)]) == 0
    captured = capsys.readouterr()
    assert "chart written to" in captured.err
    assert "ALS report" in captured.out
    with Image.open(chart) as image:
        assert image.format == "PNG"
        assert image.size[0] > 1000


def test_png_without_matplotlib_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without matplotlib, --png exits non-zero and names the charts extra."""
    hide_matplotlib(monkeypatch)
    code = main(["als", str(BATCH), "--png", str(tmp_path / "als.png")])
    assert code != 0
    assert "pip install 'grounding-router[charts]'" in capsys.readouterr().err


def test_unwritable_png_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --png path in a missing directory is bad input (exit 2)."""
    assert main(["als", str(BATCH), "--png", str(tmp_path / "missing" / "als.png")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_hostile_text_does_not_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Escape sequences in a model name or error type are removed; rich markup prints as text."""
    row = {
        "ok": True,
        "request": {
            "vendor": "openai",
            "model": "\x1b]8;;https://evil.test\x07gpt\x1b[31m-5[bold]",
        },
        "response": {"citations": [{"source_domain": "reuters.com"}]},
    }
    failure = {
        "ok": False,
        "request": {"vendor": "openai", "model": "m"},
        "error": {"type": "\x1b[2JWipe\x9b31m"},
    }
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps(failure) + "\n")
    assert main(["als", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\x9b" not in out
    assert "gpt-5[bold]" in out
    assert "1 failed: Wipe 1" in out


def test_help_explains_als_and_points_to_googles_terms(capsys: pytest.CaptureFixture[str]) -> None:
    """`als --help` says what ALS is and names the README section on Google's terms."""
    with pytest.raises(SystemExit) as exited:
        main(["als", "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Ambient Location Signals" in out
    assert "Google's terms for grounded results" in out
    assert "--png" in out
