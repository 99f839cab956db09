"""Property tests: verify() never raises on any answer and any attributions, and its figures
stay in range."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router import GroundingPolicy, lexical, provider_confidence, verify
from router.grounding import Scorer
from router.types import Attribution
from support.grounding import answer, source

# Text drawn from every script, markdown, citation markers and code fences.
_PIECES = st.sampled_from(
    [
        ". ",
        "。",
        "؟ ",
        "\n\n",
        "\n- ",
        "\n## ",
        "\n```\n",
        "`",
        "[1]",
        " ([site](https://a.org/x.y))",
        "Dr. ",
        "3.5",
        "😀",
        "Café",
        "東京",
        "القاهرة",
        "\xa0",  # non-ASCII whitespace made the segmenter panic (see the test below)
        "\u2028",
        "\x85",
        "C\xa0. ",
    ]
)
_TEXT = st.lists(st.one_of(st.text(max_size=20), _PIECES), max_size=30).map("".join)


@st.composite
def responses(draw: st.DrawFn) -> tuple[str, list[Attribution]]:
    content = draw(_TEXT)
    size = len(content)
    attributions: list[Attribution] = []
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(-3, size + 3))
        end = draw(st.integers(-3, size + 3))
        attributions.append(
            {
                "start": start,
                "end": end,
                "text": content[max(start, 0) : max(end, 0)],
                "citation": draw(st.integers(-2, 3)),
                "cited_text": draw(st.one_of(st.none(), _TEXT)),
                "location": None,
                "confidence": draw(
                    st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))
                ),
            }
        )
    return content, attributions


@pytest.mark.parametrize("scorer", [lexical, provider_confidence], ids=["lexical", "confidence"])
@given(drawn=responses())
def test_verify_never_raises_and_stays_in_range(
    scorer: Scorer, drawn: tuple[str, list[Attribution]]
) -> None:
    """Any answer and attributions: no exception, coverage and support in [0, 1], claims exact."""
    content, attributions = drawn
    citations = [source("a.org"), source("b.org", cited=False)]
    policy = GroundingPolicy(min_coverage=0.5, min_support_rate=0.5, blocked_domains=["b.org"])
    report = verify(answer(content, attributions, citations), scorer=scorer, policy=policy)
    assert 0.0 <= report.coverage <= 1.0
    assert report.support_rate is None or 0.0 <= report.support_rate <= 1.0
    assert report.supported + report.unsupported + report.uncited + report.unknown == len(
        report.claims
    )
    previous_end = 0
    for claim in report.claims:
        assert content[claim.start : claim.end] == claim.text
        assert claim.text.strip() == claim.text != ""
        assert claim.start >= previous_end
        previous_end = claim.end
        assert claim.support is None or 0.0 <= claim.support <= 1.0
        assert all(0 <= index < len(attributions) for index in claim.attributions)


@pytest.mark.parametrize(
    "content",
    [
        "\rC\u2028. )xîN. \U0007c12aÂ\nÓ",
        "C\xa0. x",
        "C\u2029. Ó",
        "\nC\x85. Â!é. \u2029\U0007c12a",
        "Dr.\u3000Smith said so.\u2028It rained. [1]",
    ],
)
def test_text_that_panicked_the_segmenter_gives_exact_claims(content: str) -> None:
    """sentencex 1.0.32 panics (a BaseException) on these; verify reads them as any other."""
    report = verify(answer(content, [], [source("a.org")]))
    assert report.claims
    for claim in report.claims:
        assert content[claim.start : claim.end] == claim.text
