"""`grounding-router demo` (what `make demo` runs) end to end, in-process."""

from __future__ import annotations

import pytest

from router.cli import main


def test_demo_shows_real_citations_from_both_vendors(capsys: pytest.CaptureFixture[str]) -> None:
    """The demo exits 0 and prints extracted citations of both vendors, a retry and a failure."""
    assert main(["demo"]) == 0
    out, err = capsys.readouterr()
    assert "built-in emulator" in out
    assert "openai gpt-5 · grounded: True" in out
    assert "vertex gemini-2.5-flash · grounded: True" in out
    assert "gemini gemini-2.5-flash · grounded: True" in out
    assert "perplexity sonar · grounded: True" in out
    assert "openrouter openai/gpt-4o-mini · grounded: True" in out
    for domain in ("wikipedia.org", "britannica.com", "zugspitze.de", "stat.go.jp"):
        assert domain in out
    assert "attempts: 2" in out
    assert '"elevation_m": 3747' in out
    assert "GroundingRequiredFailedError" in err
    assert "citations by top-level domain" in out


def test_demo_json_output_is_parseable(capsys: pytest.CaptureFixture[str]) -> None:
    """With --json-output every answer is printed as an LLMResponse JSON document."""
    assert main(["demo", "--json-output"]) == 0
    out = capsys.readouterr().out
    assert out.count('"citations": [') >= 4
