"""``verify``: the answer split into claims, each paired with what it cites and scored.

Pure and offline: it reads the response only. A response without ``attributions`` (stored
before they existed, or from a provider whose mapper does not give them yet) is read through its
citations' spans instead, one attribution per span, with the citation's ``cited_text``.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import repeat
from urllib.parse import urlsplit

from router.grounding.report import GroundingPolicy, GroundingReport, Verdict, claims_of
from router.grounding.rules import policy_violations
from router.grounding.scorers import Scorer, lexical, provider_confidence
from router.grounding.segment import segment_claims
from router.types import Attribution, Citation, LLMResponse

__all__ = ["cited_sources", "response_attributions", "verify"]

DEFAULT_SUPPORT_THRESHOLD = 0.5
_VERDICTS: tuple[Verdict, ...] = ("supported", "unsupported", "uncited", "unknown")


def verify(
    response: LLMResponse,
    *,
    scorer: Scorer | None = None,
    policy: GroundingPolicy | None = None,
) -> GroundingReport:
    """The grounding report of ``response``: claims, coverage, support, and ``policy``'s verdict.

    ``scorer`` is a callable ``(claim, passage) -> float in [0, 1]`` (default :func:`lexical`);
    a claim is ``supported`` when its best score reaches ``policy.support_threshold`` (0.5
    without a policy). Nothing is sent anywhere; the response is not changed.
    """
    score = scorer if scorer is not None else lexical
    threshold = policy.support_threshold if policy is not None else DEFAULT_SUPPORT_THRESHOLD
    attributions = response_attributions(response)
    starts, ends, texts = segment_claims(response.content)
    if attributions:
        cites = _citing(starts, ends, [(a["start"], a["end"]) for a in attributions])
        verdicts, supports = _scored(texts, cites, attributions, score, threshold)
        claims = claims_of(
            starts, ends, texts, verdicts=verdicts, attributions=cites, supports=supports
        )
        counts = {verdict: verdicts.count(verdict) for verdict in _VERDICTS}
        coverage = _coverage(texts, cites)
    else:  # nothing cited: every claim uncited, none covered
        claims = claims_of(
            starts,
            ends,
            texts,
            verdicts=repeat("uncited"),
            attributions=([] for _ in texts),
            supports=repeat(None),
        )
        counts = {"supported": 0, "unsupported": 0, "uncited": len(claims), "unknown": 0}
        coverage = 0.0
    scorable = counts["supported"] + counts["unsupported"]
    sources = cited_sources(response.citations, attributions)
    report = _report(
        claims=claims,
        coverage=coverage,
        support_rate=counts["supported"] / scorable if scorable else None,
        supported=counts["supported"],
        unsupported=counts["unsupported"],
        uncited=counts["uncited"],
        unknown=counts["unknown"],
        citations_cited=len(sources),
        cited_domains=sorted({citation["source_domain"] for citation in sources}),
        scorer=getattr(score, "__name__", type(score).__name__),
        support_threshold=threshold,
        policy=policy,
        violations=[],
    )
    if policy is not None:
        report.violations = policy_violations(report, policy, sources, _hosts(sources))
    return report


_REPORT_FIELDS = frozenset(GroundingReport.model_fields)


def _report(**values: object) -> GroundingReport:
    """The report of ``values`` (every field, each built here from checked parts), unvalidated.

    What ``GroundingReport.model_construct`` makes of every field given, at a third of its
    cost: that walks each field's aliases and defaults, a fixed cost that was a third of the
    verify of a one-sentence answer.
    """
    report = GroundingReport.__new__(GroundingReport)
    object.__setattr__(report, "__dict__", values)
    object.__setattr__(report, "__pydantic_fields_set__", set(_REPORT_FIELDS))
    object.__setattr__(report, "__pydantic_extra__", None)
    object.__setattr__(report, "__pydantic_private__", None)
    return report


def response_attributions(response: LLMResponse) -> list[Attribution]:
    """The response's attributions, or, when it has none, one for each span of its citations."""
    if response.attributions:
        return response.attributions
    derived: list[Attribution] = [
        {
            "start": span["start"],
            "end": span["end"],
            "text": span["text"],
            "citation": index,
            "cited_text": citation["cited_text"],
            "location": citation["location"],
            "confidence": None,
        }
        for index, citation in enumerate(response.citations)
        for span in citation["spans"]
    ]
    derived.sort(key=lambda attribution: (attribution["start"], attribution["end"]))
    return derived


def cited_sources(
    citations: Sequence[Citation], attributions: Sequence[Attribution]
) -> list[Citation]:
    """The citations the answer cites: marked ``cited`` or named by an attribution, once each."""
    indices = {i for i, citation in enumerate(citations) if citation["cited"]}
    indices.update(a["citation"] for a in attributions if 0 <= a["citation"] < len(citations))
    return [citations[i] for i in sorted(indices)]


def _citing(
    starts: list[int], ends: list[int], spans: Sequence[tuple[int, int]]
) -> list[list[int]]:
    """For each claim, the indices of the attributions whose span falls on it, in order.

    Claims come in answer order and never overlap (``segment_claims``' contract, held by the
    property tests), so their starts and ends both rise: the claims a span falls on are one
    run, found by bisection, and each span is visited once instead of once per claim.
    """
    cites: list[list[int]] = [[] for _ in starts]
    for index, (start, end) in enumerate(spans):
        if start < end:  # on every claim that starts before its end and ends after its start
            first, last = bisect_right(ends, start), bisect_left(starts, end)
        else:  # an empty span: on every claim whose range holds its place, ends included
            first, last = bisect_left(ends, start), bisect_right(starts, start)
        for claim in range(first, last):
            cites[claim].append(index)
    return cites


def _scored(
    texts: list[str],
    cites: list[list[int]],
    attributions: Sequence[Attribution],
    score: Scorer,
    threshold: float,
) -> tuple[list[Verdict], list[float | None]]:
    """Each claim's verdict and best score against the passages of the attributions it cites."""
    passages: dict[int, str | None] = {}  # each attribution's passage read once per reply
    verdicts: list[Verdict] = []
    supports: list[float | None] = []
    for text, indices in zip(texts, cites, strict=True):
        if not indices:
            verdicts.append("uncited")
            supports.append(None)
            continue
        scores = []
        for index in indices:
            if index in passages:
                passage = passages[index]
            else:
                passage = passages[index] = _passage(attributions[index], score)
            if passage is not None:
                scores.append(_bounded(score(text, passage)))
        if not scores:
            verdicts.append("unknown")
            supports.append(None)
        else:
            support = max(scores)
            verdicts.append("supported" if support >= threshold else "unsupported")
            supports.append(support)
    return verdicts, supports


def _passage(attribution: Attribution, score: Scorer) -> str | None:
    """What the scorer compares the claim with: the quoted passage, or the provider's score."""
    if score is provider_confidence:
        confidence = attribution["confidence"]
        return None if confidence is None else repr(float(confidence))
    passage = attribution["cited_text"]
    return passage if passage and passage.strip() else None


def _bounded(value: float) -> float:
    """A scorer's answer held to [0, 1]; NaN (a scorer's bug) counts as no support."""
    value = float(value)
    return 0.0 if math.isnan(value) else min(1.0, max(0.0, value))


def _coverage(texts: list[str], cites: list[list[int]]) -> float:
    """Share of the claims' non-blank characters that lie in cited claims.

    A count of non-blank characters adds up over texts joined end to end: each share is
    counted in one pass over the joined texts instead of one per claim.
    """
    total = _non_blank("".join(texts))
    cited = _non_blank(
        "".join([text for text, indices in zip(texts, cites, strict=True) if indices])
    )
    return cited / total if total else 0.0


# The characters str.isspace() holds true for among ASCII, as bytes to delete.
_ASCII_BLANKS = bytes(code for code in range(128) if chr(code).isspace())


def _non_blank(text: str) -> int:
    """How many characters of ``text`` are not whitespace (``str.isspace``).

    ASCII text is counted by deleting its blanks from its bytes, several times cheaper than
    splitting it into words; other text is split.
    """
    if text.isascii():
        return len(text.encode("ascii").translate(None, _ASCII_BLANKS))
    return sum(map(len, text.split()))


def _hosts(sources: Sequence[Citation]) -> list[str]:
    hosts = []
    for citation in sources:
        url = citation["url"]
        try:
            host = urlsplit(url).hostname if url else None
        except ValueError:
            host = None
        hosts.append(host or "")
    return hosts
