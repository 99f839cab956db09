"""verify() on hand-made answers whose coverage, verdicts and support are known by construction."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from router import GroundingPolicy, GroundingReport, LLMResponse, provider_confidence, verify
from router.types import Attribution
from support.grounding import answer, cite, source


@dataclass(frozen=True)
class Row:
    """One answer, its attributions, and what verify must find (``why`` says why)."""

    why: str
    content: str
    attributions: list[Attribution]
    verdicts: list[str]
    coverage: float
    support_rate: float | None
    claims: list[str] = field(default_factory=list)


def _rows() -> list[tuple[str, Row]]:
    two = "Paris is the capital of France. It has 2.1 million people."
    marked = "Paris is the capital of France.[1] It has 2.1 million people."
    listed = "Facts:\n\n- Paris is the capital of France.\n- Lyon is the third city."
    code = "Run this:\n\n```sh\nls -l. echo done\n```\n\nIt lists files."
    cjk = "東京は日本の首都です。人口は約1400万人です\uff01"
    arabic = "القاهرة هي عاصمة مصر. يبلغ عدد سكانها عشرين مليون."
    emoji = "Café 😀 prices rose in 2024. Rents rose too."
    return [
        (
            "no-citations",
            Row(
                "nothing cites anything: every claim uncited, coverage 0, no support rate",
                two,
                [],
                ["uncited", "uncited"],
                0.0,
                None,
                ["Paris is the capital of France.", "It has 2.1 million people."],
            ),
        ),
        (
            "one-of-two-supported",
            Row(
                "the first sentence is cited with a passage holding all its content words; "
                "coverage is its share of non-blank characters (26 of 48)",
                two,
                [cite(two, "Paris is the capital of France", 0, "Paris, capital of France")],
                ["supported", "uncited"],
                26 / 48,
                1.0,
            ),
        ),
        (
            "unsupported-passage",
            Row(
                "the passage shares no content word with the claim: cited but unsupported",
                two,
                [cite(two, "It has 2.1 million people", 0, "The river Seine flows west")],
                ["uncited", "unsupported"],
                22 / 48,
                0.0,
            ),
        ),
        (
            "unknown-without-passage",
            Row(
                "cited with no passage (as OpenAI cites): unknown, never counted as supported",
                two,
                [cite(two, "Paris is the capital of France", 0)],
                ["unknown", "uncited"],
                26 / 48,
                None,
            ),
        ),
        (
            "best-of-two-passages",
            Row(
                "two passages cite one claim: the best score decides (one supports it)",
                two,
                [
                    cite(two, "It has 2.1 million people", 0, "Nothing related here"),
                    cite(two, "It has 2.1 million people", 0, "2.1 million people live there"),
                ],
                ["uncited", "supported"],
                22 / 48,
                1.0,
            ),
        ),
        (
            "marker-after-full-stop",
            Row(
                "a [1] marker right after the full stop belongs to the sentence before it",
                marked,
                [cite(marked, "[1]", 0, "Paris is the capital of France")],
                ["supported", "uncited"],
                29 / 51,
                1.0,
                ["Paris is the capital of France.[1]", "It has 2.1 million people."],
            ),
        ),
        (
            "markdown-list",
            Row(
                "each list item is a claim of its own, without its marker",
                listed,
                [cite(listed, "Lyon is the third city", 0, "Lyon: third city of France")],
                ["uncited", "uncited", "supported"],
                19 / 51,  # 'Lyon is the third city.' of 6 + 26 + 19 non-blank characters
                1.0,
                ["Facts:", "Paris is the capital of France.", "Lyon is the third city."],
            ),
        ),
        (
            "code-block-intact",
            Row(
                "a fenced code block is one claim, never cut at the full stop inside it",
                code,
                [cite(code, "It lists files", 0, "ls lists files")],
                ["uncited", "uncited", "supported"],
                13 / 42,  # 'It lists files.' of 8 + 21 + 13
                1.0,
                ["Run this:", "```sh\nls -l. echo done\n```", "It lists files."],
            ),
        ),
        (
            "japanese",
            Row(
                "CJK sentences end at the ideographic full stop and exclamation mark; offsets "
                "count characters, not bytes",
                cjk,
                [cite(cjk, "人口は約1400万人です", 0, "人口は約1400万人")],
                ["uncited", "supported"],
                13 / 24,
                1.0,
                ["東京は日本の首都です。", "人口は約1400万人です\uff01"],
            ),
        ),
        (
            "arabic",
            Row(
                "Arabic sentences are split at the full stop and cited by character offsets",
                arabic,
                [cite(arabic, "القاهرة هي عاصمة مصر", 0, "القاهرة عاصمة مصر")],
                ["supported", "uncited"],
                18 / 42,
                1.0,
            ),
        ),
        (
            "emoji-and-accents",
            Row(
                "an astral emoji and an accent: offsets stay on code points, folding matches "
                "'cafe' with 'Café'",
                emoji,
                [cite(emoji, "Café 😀 prices rose in 2024", 0, "cafe prices rose (2024)")],
                ["supported", "uncited"],
                22 / 35,
                1.0,
            ),
        ),
    ]


ROWS = _rows()


@pytest.mark.parametrize("row", [row for _, row in ROWS], ids=[name for name, _ in ROWS])
def test_verify_finds_the_known_report(row: Row) -> None:
    """Verdicts, coverage and support rate are the ones the row was built to have."""
    response = answer(row.content, row.attributions)
    report = verify(response)
    assert [claim.verdict for claim in report.claims] == row.verdicts, row.why
    assert report.coverage == pytest.approx(row.coverage), row.why
    assert report.support_rate == pytest.approx(row.support_rate), row.why
    if row.claims:
        assert [claim.text for claim in report.claims] == row.claims, row.why
    for claim in report.claims:
        assert row.content[claim.start : claim.end] == claim.text


def test_verdict_counts_add_up_to_the_claims() -> None:
    """Each verdict count is the number of claims with that verdict."""
    _, row = ROWS[4]
    report = verify(answer(row.content, row.attributions))
    assert (report.supported, report.unsupported, report.uncited, report.unknown) == (1, 0, 1, 0)


def test_claims_name_the_attributions_that_fall_on_them() -> None:
    """A claim lists the indices of the attributions overlapping it, and only those."""
    text = "Paris is the capital. Lyon is a city. Nice is warm."
    attributions = [
        cite(text, "Paris is the capital", 0, "Paris capital"),
        cite(text, "Nice is warm", 1, "Nice warm"),
        cite(text, "Nice", 0, "Nice"),
    ]
    report = verify(answer(text, attributions, [source("a.org"), source("b.org")]))
    assert [claim.attributions for claim in report.claims] == [[0], [], [1, 2]]


def test_cited_domains_are_distinct_and_count_cited_sources_only() -> None:
    """Domains of the sources the answer cites, once each; a search-only result does not count."""
    text = "One. Two. Three."
    citations = [
        source("a.org"),
        source("b.org", cited=False),
        source("a.org", url="https://a.org/other"),
    ]
    attributions = [cite(text, "One.", 0, "One"), cite(text, "Three.", 2, "Three")]
    report = verify(answer(text, attributions, citations))
    assert report.cited_domains == ["a.org"]
    assert report.citations_cited == 2


def test_provider_confidence_scores_with_the_attributions_confidence() -> None:
    """With provider_confidence, the provider's score decides; no score at all is unknown."""
    text = "Paris is the capital. Lyon is a city. Nice is warm."
    attributions = [
        cite(text, "Paris is the capital", 0, confidence=0.9),
        cite(text, "Lyon is a city", 0, "Lyon is a city", confidence=0.2),
        cite(text, "Nice is warm", 0, "Nice is warm"),
    ]
    report = verify(answer(text, attributions), scorer=provider_confidence)
    assert [claim.verdict for claim in report.claims] == ["supported", "unsupported", "unknown"]
    assert [claim.support for claim in report.claims] == [0.9, 0.2, None]
    assert report.scorer == "provider_confidence"


def test_a_scorer_of_ones_own_plugs_in() -> None:
    """Any callable (claim, passage) -> float is a scorer: it is called and the report names it."""
    calls: list[tuple[str, str]] = []

    def says_no_to_numbers(claim: str, passage: str) -> float:
        calls.append((claim, passage))
        return 0.0 if any(c.isdigit() for c in claim) else 1.0

    text = "Paris is the capital. It has 2.1 million people."
    attributions = [
        cite(text, "Paris is the capital", 0, "p1"),
        cite(text, "It has 2.1 million people", 0, "p2"),
    ]
    report = verify(answer(text, attributions), scorer=says_no_to_numbers)
    assert calls == [("Paris is the capital.", "p1"), ("It has 2.1 million people.", "p2")]
    assert [claim.verdict for claim in report.claims] == ["supported", "unsupported"]
    assert report.scorer == "says_no_to_numbers"


def test_scores_out_of_range_are_held_to_the_unit_interval() -> None:
    """A scorer's 7.0 counts as 1 and its NaN as 0: support stays in [0, 1]."""
    text = "One claim here. Another claim here."
    attributions = [cite(text, "One claim here", 0, "x"), cite(text, "Another claim", 0, "y")]
    report = verify(
        answer(text, attributions), scorer=lambda _, p: 7.0 if p == "x" else float("nan")
    )
    assert [claim.support for claim in report.claims] == [1.0, 0.0]


def test_citation_spans_stand_in_when_there_are_no_attributions() -> None:
    """A response without attributions is read through its citations' spans and passages."""
    text = "Paris is the capital of France. It has 2.1 million people."
    citation = source("a.org")
    citation["spans"] = [{"start": 0, "end": 30, "text": text[:30]}]
    citation["cited_text"] = "Paris is the capital of France"
    report = verify(answer(text, [], [citation]))
    assert [claim.verdict for claim in report.claims] == ["supported", "uncited"]


def test_verify_leaves_the_response_unchanged() -> None:
    """verify is pure: the response is the same after it ran."""
    text = "Paris is the capital of France."
    response = answer(text, [cite(text, "Paris", 0, "Paris")])
    before = response.model_dump()
    verify(response)
    assert response.model_dump() == before
    assert response.grounding is None


def test_an_empty_answer_has_no_claims_and_no_coverage() -> None:
    """An answer of blank space has no claim, coverage 0 and no support rate."""
    report = verify(answer("  \n\n ", []))
    assert report.claims == []
    assert report.coverage == 0.0
    assert report.support_rate is None


def test_the_report_round_trips_on_the_response() -> None:
    """A response carrying attributions and its report serialises and reads back equal."""
    text = "Paris is the capital of France."
    response = answer(text, [cite(text, "Paris", 0, "Paris", confidence=0.5)])
    response.grounding = verify(response)
    again = LLMResponse.model_validate_json(response.model_dump_json())
    assert again == response
    assert isinstance(again.grounding, GroundingReport)
    assert again.attributions == response.attributions


@pytest.mark.parametrize("policy", [None, GroundingPolicy(min_coverage=1.0)], ids=["none", "set"])
def test_the_report_is_what_model_construct_would_make(policy: GroundingPolicy | None) -> None:
    """verify builds its report without pydantic's walk over the fields: the same model, with
    every field set, no extra and no private values, as ``model_construct`` makes of them."""
    text = "Paris is the capital of France. Lyon is a city."
    report = verify(answer(text, [cite(text, "Paris", 0, "Paris capital")]), policy=policy)
    constructed = GroundingReport.model_construct(**report.__dict__)
    assert report == constructed
    assert report.model_fields_set == constructed.model_fields_set
    assert report.model_fields_set == set(GroundingReport.model_fields)
    assert report.__pydantic_extra__ == constructed.__pydantic_extra__
    assert report.__pydantic_private__ == constructed.__pydantic_private__
    assert GroundingReport.model_validate(report.model_dump()) == report
