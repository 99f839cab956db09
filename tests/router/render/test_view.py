"""Reading serialised responses for display: attributions, segments, verdicts, safe links."""

from __future__ import annotations

import pytest

from router.render.view import (
    answer_segments,
    attribution_verdicts,
    attributions_of,
    coverage_of,
    safe_href,
    verification_summary,
)
from support.report_samples import grounded_response, spans_only_response


def test_attributions_are_read_in_answer_order() -> None:
    """Given attributions are kept, sorted by place, with the text they cover."""
    response = grounded_response()
    attributions = attributions_of(response)
    assert [(a["citation"], a["text"][:12]) for a in attributions] == [
        (0, "The Zugspitz"),
        (0, "It lies on t"),
        (1, "It lies on t"),
        (2, "A rack railw"),
    ]
    assert attributions[0]["confidence"] == pytest.approx(0.93)


def test_spans_stand_in_when_a_response_has_no_attributions() -> None:
    """A file from before attributions existed: each citation span is one attribution."""
    attributions = attributions_of(spans_only_response())
    assert [(a["citation"], a["text"]) for a in attributions] == [
        (0, "The Zugspitze is 2,962 m high."),
        (1, "Bavaria and Tyrol"),
    ]
    assert attributions[1]["cited_text"] == "on the border between Bavaria and Tyrol"


@pytest.mark.parametrize(
    "bad",
    [
        {"start": 5, "end": 3, "citation": 0},
        {"start": 0, "end": 10_000, "citation": 0},
        {"start": 0, "end": 5, "citation": 9},
        {"start": "0", "end": 5, "citation": 0},
        {"start": True, "end": 5, "citation": 0},
        "not a dict",
    ],
)
def test_attributions_the_answer_cannot_hold_are_left_out(bad: object) -> None:
    """Offsets outside the answer or a citation that does not exist are never shown."""
    response = grounded_response()
    response["attributions"] = [bad, {"start": 0, "end": 3, "citation": 1}]
    assert [(a["start"], a["end"], a["citation"]) for a in attributions_of(response)] == [(0, 3, 1)]


def test_segments_cut_at_every_boundary_and_carry_markers() -> None:
    """Overlapping attributions give pieces covered by each; markers sit where they end."""
    content = "abcdefghij"
    attributions = [
        {"start": 0, "end": 6, "citation": 0},
        {"start": 3, "end": 9, "citation": 1},
    ]
    segments = answer_segments(content, attributions)
    assert [(s["t"], s["a"], s["m"]) for s in segments] == [
        ("abc", [0], []),
        ("def", [0, 1], [1]),
        ("ghi", [1], [2]),
        ("j", [], []),
    ]
    assert "".join(s["t"] for s in segments) == content


def test_verdicts_come_from_the_claim_naming_the_attribution() -> None:
    """A claim's attribution indices give each attribution its verdict."""
    response = grounded_response()
    verdicts = attribution_verdicts(response, attributions_of(response))
    assert verdicts == ["supported", "unsupported", "unsupported", "unknown"]


def test_without_verification_there_is_no_verdict_or_summary() -> None:
    """No grounding report: no verdicts, no summary, coverage from the attributed characters."""
    response = spans_only_response()
    assert attribution_verdicts(response, attributions_of(response)) == [None, None]
    assert verification_summary(response) is None
    expected = (len("The Zugspitze is 2,962 m high.") + len("Bavaria and Tyrol")) / len(
        response["content"]
    )
    assert coverage_of(response) == pytest.approx(expected)


def test_the_summary_reads_the_report() -> None:
    """Coverage, support rate, verdict counts and scorer come from the grounding report."""
    summary = verification_summary(grounded_response())
    assert summary == {
        "coverage": 0.81,
        "support_rate": 0.5,
        "counts": {"supported": 1, "unsupported": 1, "uncited": 0, "unknown": 1},
        "scorer": "lexical",
        "violations": [],
    }


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.org/a?b=c#d", "https://example.org/a?b=c#d"),
        ("http://example.org", "http://example.org"),
        ("HTTPS://EXAMPLE.ORG/", "HTTPS://EXAMPLE.ORG/"),
        ("javascript:alert(1)", None),
        ("JavaScript:alert(1)", None),
        ("data:text/html,<script>", None),
        ("//example.org/protocol-relative", None),
        ("/relative", None),
        ("https:///no-host", None),
        ("https://example.org/a b", None),
        ("https://example.org/\x1b]0;t\x07", None),
        ("https://example.org/\x85", None),
        (" https://example.org", None),
        ("https://example.org/" + "a" * 9000, None),
        (None, None),
    ],
)
def test_only_absolute_http_urls_become_links(url: str | None, expected: str | None) -> None:
    """``safe_href`` passes absolute http(s) URLs and nothing else."""
    assert safe_href(url) == expected


def test_numbers_that_are_not_finite_are_shown_as_missing() -> None:
    """NaN or infinite confidence and coverage (valid in Python's JSON) read as None."""
    response = grounded_response()
    response["attributions"][0]["confidence"] = float("nan")
    response["grounding"]["coverage"] = float("inf")
    assert attributions_of(response)[0]["confidence"] is None
    summary = verification_summary(response)
    assert summary is not None
    assert summary["coverage"] is None
