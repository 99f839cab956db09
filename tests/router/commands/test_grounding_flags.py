"""`route --verify`, the policy flags and `extract --verify`: the report on the command line."""

from __future__ import annotations

import json

import pytest

from router.cli import main
from router.emulator import Emulator
from support.recorded import recorded_files

ANTHROPIC_BODY = recorded_files("prism/anthropic_web_search_7_citations.json")[0]
ROUTE = ["route", "--vendor", "anthropic", "--model", "claude-sonnet-4-5"]
QUESTION = "What is the capital of France?"


@pytest.fixture
def endpoints(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", emulator.anthropic_base_url)
    return emulator


def test_route_verify_prints_the_report(
    endpoints: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """--verify prints coverage, support, the verdict of each claim and the cited domains."""
    assert main([*ROUTE, "--grounded", "--verify", QUESTION]) == 0
    out = capsys.readouterr().out
    assert "grounding: coverage" in out
    assert "cited domains: " in out
    assert "supported" in out
    assert "policy:" not in out


def test_route_verify_json_carries_the_report(
    endpoints: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """--verify --json-output puts the report in the response's grounding field."""
    assert main([*ROUTE, "--grounded", "--verify", "--json-output", QUESTION]) == 0
    grounding = json.loads(capsys.readouterr().out)["grounding"]
    assert 0 < grounding["coverage"] <= 1
    assert grounding["scorer"] == "lexical"
    assert grounding["claims"]


def test_required_with_a_broken_rule_exits_3_naming_it(
    endpoints: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """--required with --min-domains beyond the answer's fails with exit 3 and the rule named."""
    assert main([*ROUTE, "--required", "--min-domains", "50", QUESTION]) == 3
    err = capsys.readouterr().err
    assert "reason=policy" in err
    assert "rule=min_domains" in err


def test_auto_with_a_broken_rule_reports_it(
    endpoints: Emulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --required a broken rule is printed under the report and the call succeeds."""
    argv = [*ROUTE, "--grounded", "--block-domain", "wikipedia.org", "--max-uncited", "0"]
    assert main([*argv, QUESTION]) == 0
    out = capsys.readouterr().out
    assert "policy: blocked_domains: cites blocked domains: wikipedia.org" in out
    assert "policy: max_uncited_claims" in out


def test_the_policy_flags_build_the_requests_policy() -> None:
    """Each policy flag sets its GroundingPolicy field; repeated domain flags add up."""
    from router.cli import build_parser
    from router.commands.grounding_flags import policy_from_args

    argv = [*ROUTE, "--min-coverage", "0.5", "--min-support", "0.25", "--min-citations", "2"]
    argv += ["--min-domains", "3", "--max-uncited", "1", "--support-threshold", "0.7"]
    argv += ["--allow-domain", "a.org", "--allow-domain", "b.org", "--block-domain", "c.org", "q"]
    args = build_parser().parse_args(argv)
    assert policy_from_args(args) == {
        "min_coverage": 0.5,
        "min_support_rate": 0.25,
        "min_citations": 2,
        "min_domains": 3,
        "max_uncited_claims": 1,
        "support_threshold": 0.7,
        "allowed_domains": ["a.org", "b.org"],
        "blocked_domains": ["c.org"],
    }
    assert policy_from_args(build_parser().parse_args([*ROUTE, "q"])) is None


def test_extract_verify_prints_the_report_of_a_stored_reply(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`extract --verify` adds the report to a recorded Anthropic reply, which quotes passages."""
    assert main(["extract", str(ANTHROPIC_BODY), "--vendor", "anthropic", "--verify"]) == 0
    out = capsys.readouterr().out
    assert "grounding: coverage" in out
    assert "supported" in out


def test_extract_without_verify_prints_no_report(capsys: pytest.CaptureFixture[str]) -> None:
    """`extract` alone leaves the report out."""
    assert main(["extract", str(ANTHROPIC_BODY), "--vendor", "anthropic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["grounding"] is None
