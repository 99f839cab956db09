"""Grounding policies in batch jobs: per-line policies, the command's default, and the summary's
coverage, support and policy failures per vendor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from router.batch import LocalEngine, run_batch
from router.batch.stats import ShareHistogram
from router.emulator import Emulator
from router.unified_llm_adapter import UnifiedLLMAdapter
from support.emulated import batch_cli, emulator_settings, grounded_request, rows_of

QUESTION = "What is the capital of France?"


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_batch_with_policies_gives_one_row_per_line_naming_the_rule(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Each line's own policy: a broken REQUIRED rule fails its row with the rule named."""
    lines = [
        grounded_request("anthropic", QUESTION, mode="REQUIRED", request_id="met",
                         grounding_policy={"min_domains": 1}),
        grounded_request("anthropic", QUESTION, mode="REQUIRED", request_id="too-few",
                         grounding_policy={"min_domains": 50}),
        grounded_request("openai", QUESTION, mode="REQUIRED", request_id="no-passage",
                         grounding_policy={"min_support_rate": 0.1}),
        grounded_request("anthropic", QUESTION, request_id="auto",
                         grounding_policy={"blocked_domains": ["wikipedia.org"]}),
    ]  # fmt: skip
    _write(tmp_path / "in.jsonl", lines)
    out = tmp_path / "out.jsonl"
    with UnifiedLLMAdapter(emulator_settings(emulator, timeout_s=10)) as router:
        summary = run_batch(
            tmp_path / "in.jsonl", out, engine=LocalEngine(router=router), concurrency=4
        )
    rows = {row["request_id"]: row for row in rows_of(out)}
    assert sorted(rows) == ["auto", "met", "no-passage", "too-few"]
    assert rows["met"]["ok"]
    assert rows["met"]["response"]["grounding"]["violations"] == []
    assert not rows["too-few"]["ok"]
    assert rows["too-few"]["error"]["reason"] == "policy"
    assert rows["too-few"]["error"]["rule"] == "min_domains"
    # OpenAI quotes no passage: its claims are unknown, never counted as supported.
    assert rows["no-passage"]["error"]["rule"] == "min_support_rate"
    assert rows["auto"]["ok"]
    violations = rows["auto"]["response"]["grounding"]["violations"]
    assert [v["rule"] for v in violations] == ["blocked_domains"]
    assert summary.required_failure_reasons == {"policy": 2}
    anthropic = summary.grounding["anthropic"]
    assert anthropic["reports"] == 3
    assert anthropic["policy_failures"] == {"blocked_domains": 1, "min_domains": 1}
    assert set(anthropic["coverage"]) == {"p10", "p50", "p90"}
    assert 0 < anthropic["coverage"]["p50"] <= 1


def test_the_batch_command_applies_its_default_policy_and_reports_it(
    emulator: Emulator, tmp_path: Path
) -> None:
    """Policy flags set the default of lines without one; --summary-json has the distributions."""
    lines = [
        grounded_request("anthropic", QUESTION, mode="REQUIRED", request_id="default"),
        grounded_request("anthropic", QUESTION, mode="REQUIRED", request_id="own",
                         grounding_policy={}),
    ]  # fmt: skip
    _write(tmp_path / "in.jsonl", lines)
    out, summary_file = tmp_path / "out.jsonl", tmp_path / "summary.json"
    process = batch_cli(
        emulator,
        str(tmp_path / "in.jsonl"),
        "-o",
        str(out),
        "--summary-json",
        str(summary_file),
        "--min-domains",
        "50",
    )
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    rows = {row["request_id"]: row for row in rows_of(out)}
    assert rows["default"]["error"]["rule"] == "min_domains"
    assert rows["own"]["ok"]
    grounding = json.loads(summary_file.read_text())["grounding"]["anthropic"]
    assert grounding["reports"] == 2
    assert grounding["policy_failures"] == {"min_domains": 1}
    assert "grounding (claim by claim)" in stdout
    assert "min_domains 1" in stdout


def test_share_percentiles_are_exact_to_a_percent() -> None:
    """p10/p50/p90 of shares counted by whole percent, merged across parts, as sorted data has."""
    first, second = ShareHistogram(), ShareHistogram()
    for value in (0.0, 0.1, 0.2, 0.3, 0.4):
        first.add(value)
    for value in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        second.add(value)
    first.merge(second)
    assert first.count == 11
    assert first.percentiles() == {"p10": 0.1, "p50": 0.5, "p90": 0.9}
    assert ShareHistogram().percentiles() == {"p10": None, "p50": None, "p90": None}
