"""The ALS report over rows of requests with fallbacks: grouped by the vendor that answered,
with the fallbacks taken counted by reason."""

from __future__ import annotations

import json
from typing import Any

from als.report import build_report
from router.batch.output import error_row, row_text, success_row
from router.errors import GroundingRequiredFailedError
from router.types import LLMRequest, LLMResponse

REQUEST = LLMRequest(
    vendor="openai",
    model="gpt-5",
    messages=[{"role": "user", "content": "Who wrote Dune?"}],  # type: ignore[list-item]
    request_id="r1",
    fallbacks=[{"vendor": "anthropic"}],  # type: ignore[list-item]
)


def _attempt(vendor: str, outcome: str, reason: str | None) -> dict[str, Any]:
    return {"vendor": vendor, "model": "m", "outcome": outcome, "reason": reason}


def _row(row: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(row_text(row))
    return loaded


def test_answer_counts_under_the_vendor_that_gave_it_with_its_fallback_reason() -> None:
    """A row answered by the fallback is Anthropic's; the move off OpenAI is counted by reason."""
    response = LLMResponse(
        request_id="r1",
        vendor="anthropic",
        model="claude-sonnet-4-6",
        content="Frank Herbert.",
        metadata={
            "attempts": [
                _attempt("openai", "failed", "not_invoked"),
                _attempt("anthropic", "answered", None),
            ]
        },
    )
    failure = GroundingRequiredFailedError("no search", reason="not_invoked", vendor="anthropic")
    failure.fallback_attempts = [
        _attempt("openai", "failed", "server_error"),
        _attempt("anthropic", "failed", "not_invoked"),
    ]
    rows = [_row(success_row(1, REQUEST, response)), _row(error_row(2, "r2", failure, REQUEST))]
    report = build_report(rows, by=("vendor",))
    groups = {group.label(): group.to_dict() for group in report.groups}
    assert set(groups) == {"anthropic", "openai"}
    assert groups["anthropic"]["fallbacks"] == {"taken": 1, "by_reason": {"not_invoked": 1}}
    assert groups["openai"]["fallbacks"] == {"taken": 1, "by_reason": {"server_error": 1}}
