"""``extract`` without --vendor reads the body as the provider whose reader finds most in it, and
a --vendor that reads nothing is answered with the provider the body reads as."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.cli import main
from router.commands.exit_codes import ExitCode

RECORDED = Path(__file__).resolve().parents[2] / "data" / "recorded"

CASES = [
    ("mirascope/openai_responses_gpt4o_stream.sse.txt", "openai"),
    ("prism/anthropic_web_search_7_citations.json", "anthropic"),
    ("mirascope/gemini25flash_stream_grounding.sse.txt", "vertex"),
    ("prism/perplexity_sonar_citations_search_results.json", "perplexity"),
]


@pytest.mark.parametrize(("name", "vendor"), CASES, ids=[vendor for _, vendor in CASES])
def test_vendor_is_guessed_from_the_body(
    name: str, vendor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recorded reply with no --vendor is read as its provider's, and stderr says so."""
    assert main(["extract", str(RECORDED / name)]) == ExitCode.OK
    err = capsys.readouterr().err
    assert f"read as a {vendor} reply" in err


def test_a_vendor_that_reads_nothing_names_the_likely_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``extract --vendor openai`` on a Gemini stream exits 6 and names the vendor it reads as."""
    path = RECORDED / "mirascope/gemini25flash_stream_grounding.sse.txt"
    assert main(["extract", str(path), "--vendor", "openai"]) == ExitCode.RESPONSE_UNUSABLE
    assert "it reads as a vertex reply (--vendor vertex)" in capsys.readouterr().err
