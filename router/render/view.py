"""What the terminal block and the HTML report show of one serialised response: pure functions.

Everything reads the response as the plain dict its JSON holds (``model_dump(mode="json")``, a
batch row's ``response``, a ``compare --json`` outcome) with ``.get``: files written before
attributions or verification existed still render. Attributions come from
``response["attributions"]`` (DESIGN section 10) and, when a response has none, from its
citations' ``spans``, each span one attribution of its citation.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "VERDICTS",
    "Attribution",
    "answer_segments",
    "attribution_verdicts",
    "attributions_of",
    "citations_of",
    "coverage_of",
    "is_redirect",
    "safe_href",
    "source_verdicts",
    "verification_summary",
]

Attribution = dict[str, Any]
"""``{start, end, text, citation, cited_text, location, confidence}`` with valid offsets."""

VERDICTS = ("supported", "unsupported", "uncited", "unknown")
# Whitespace (Unicode's too) and C0/C1 controls: a URL holding one is shown, never linked.
_NOT_IN_LINKS = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")


def citations_of(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The response's citations that are dicts (a hand-edited file may hold anything)."""
    citations = response.get("citations")
    if not isinstance(citations, list):
        return []
    return [citation for citation in citations if isinstance(citation, dict)]


def attributions_of(response: Mapping[str, Any]) -> list[Attribution]:
    """Every place the answer cites a source, in answer order, offsets checked against it.

    An entry whose offsets fall outside the answer or whose ``citation`` names no citation is
    left out: a report shows what the file proves, never a guess.
    """
    content = response.get("content")
    length = len(content) if isinstance(content, str) else 0
    citations = citations_of(response)
    given = response.get("attributions")
    if isinstance(given, list) and given:
        candidates = [entry for entry in given if isinstance(entry, dict)]
    else:
        candidates = [
            {**span, "citation": index, "cited_text": citation.get("cited_text")}
            for index, citation in enumerate(citations)
            for span in _spans(citation)
        ]
    kept: list[Attribution] = []
    for entry in candidates:
        start, end, index = (
            _int(entry.get("start")),
            _int(entry.get("end")),
            _int(entry.get("citation")),
        )
        if start is None or end is None or index is None:
            continue
        if not (0 <= start < end <= length and 0 <= index < len(citations)):
            continue
        kept.append(
            {
                "start": start,
                "end": end,
                "text": content[start:end] if isinstance(content, str) else "",
                "citation": index,
                "cited_text": _text_or_none(entry.get("cited_text")),
                "location": entry.get("location")
                if isinstance(entry.get("location"), dict)
                else None,
                "confidence": _number_or_none(entry.get("confidence")),
            }
        )
    kept.sort(key=lambda entry: (entry["start"], entry["end"], entry["citation"]))
    return kept


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _spans(citation: Mapping[str, Any]) -> list[dict[str, Any]]:
    spans = citation.get("spans")
    return [span for span in spans if isinstance(span, dict)] if isinstance(spans, list) else []


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _number_or_none(value: Any) -> float | None:
    # JSON files may hold NaN or Infinity (Python writes them): shown as missing, not as numbers.
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _claims(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    grounding = response.get("grounding")
    claims = grounding.get("claims") if isinstance(grounding, dict) else None
    return (
        [claim for claim in claims if isinstance(claim, dict)] if isinstance(claims, list) else []
    )


def attribution_verdicts(
    response: Mapping[str, Any], attributions: Sequence[Attribution]
) -> list[str | None]:
    """The verdict of the claim each attribution belongs to (None when verification did not run).

    A claim names its attributions (indices into the response's list, or the entries
    themselves); failing that, the claim whose characters hold the attribution's is its claim.
    """
    claims = _claims(response)
    verdicts: list[str | None] = [None] * len(attributions)
    given = response.get("attributions")
    original = given if isinstance(given, list) else []
    for position, attribution in enumerate(attributions):
        for claim in claims:
            verdict = claim.get("verdict")
            if not isinstance(verdict, str):
                continue
            if _claim_names(claim, attribution, original) or _claim_holds(claim, attribution):
                verdicts[position] = verdict
                break
    return verdicts


def _claim_names(
    claim: Mapping[str, Any], attribution: Attribution, original: Sequence[Any]
) -> bool:
    named = claim.get("attributions")
    if not isinstance(named, list):
        return False
    key = (attribution["start"], attribution["end"], attribution["citation"])
    for name in named:
        entry = name
        if isinstance(name, int) and not isinstance(name, bool) and 0 <= name < len(original):
            entry = original[name]
        if (
            isinstance(entry, dict)
            and (
                entry.get("start"),
                entry.get("end"),
                entry.get("citation"),
            )
            == key
        ):
            return True
    return False


def _claim_holds(claim: Mapping[str, Any], attribution: Attribution) -> bool:
    start, end = claim.get("start"), claim.get("end")
    if not (isinstance(start, int) and isinstance(end, int)):
        return False
    return bool(start <= attribution["start"] and attribution["end"] <= end)


def source_verdicts(response: Mapping[str, Any]) -> dict[int, Counter[str]]:
    """For each citation index, how many of its attributions got each verdict."""
    attributions = attributions_of(response)
    counts: dict[int, Counter[str]] = {}
    for attribution, verdict in zip(
        attributions, attribution_verdicts(response, attributions), strict=True
    ):
        if verdict is not None:
            counts.setdefault(attribution["citation"], Counter())[verdict] += 1
    return counts


def verification_summary(response: Mapping[str, Any]) -> dict[str, Any] | None:
    """Coverage, support rate, verdict counts and scorer of the verification, or None."""
    grounding = response.get("grounding")
    if not isinstance(grounding, dict):
        return None
    counts: Counter[str] = Counter()
    for name in ("counts", "verdict_counts", "verdicts"):
        given = grounding.get(name)
        if isinstance(given, dict):
            counts.update({str(k): v for k, v in given.items() if isinstance(v, int)})
            break
    else:
        for verdict in VERDICTS:
            value = grounding.get(verdict)
            if isinstance(value, int) and not isinstance(value, bool):
                counts[verdict] = value
        if not counts:
            counts.update(
                claim["verdict"]
                for claim in _claims(response)
                if isinstance(claim.get("verdict"), str)
            )
    return {
        "coverage": _number_or_none(grounding.get("coverage")),
        "support_rate": _number_or_none(grounding.get("support_rate")),
        "counts": {verdict: counts.get(verdict, 0) for verdict in VERDICTS},
        "scorer": grounding.get("scorer") if isinstance(grounding.get("scorer"), str) else None,
        "violations": [str(v) for v in grounding.get("violations") or [] if v]
        if isinstance(grounding.get("violations"), list)
        else [],
    }


def coverage_of(response: Mapping[str, Any]) -> float | None:
    """The verification's coverage, else the share of answer characters inside attributions."""
    summary = verification_summary(response)
    if summary is not None and summary["coverage"] is not None:
        return float(summary["coverage"])
    content = response.get("content")
    if not isinstance(content, str) or not content:
        return None
    covered = 0
    reach = 0
    for attribution in attributions_of(response):
        start = max(attribution["start"], reach)
        if attribution["end"] > start:
            covered += attribution["end"] - start
        reach = max(reach, attribution["end"])
    return covered / len(content)


def answer_segments(content: str, attributions: Sequence[Attribution]) -> list[dict[str, Any]]:
    """The answer cut at every attribution boundary: ``{t, s, e, a, m}`` pieces in order.

    ``t`` is the piece's text, ``s`` and ``e`` its offsets in the answer, ``a`` the indices
    of the attributions covering it (empty: not cited), ``m`` the source numbers (1-based
    citation indices) of the attributions that end where the piece ends, in order, each once:
    the ``[n]`` markers to show after it.
    """
    bounds = sorted(
        {0, len(content), *(a["start"] for a in attributions), *(a["end"] for a in attributions)}
    )
    ending: dict[int, list[int]] = {}
    for attribution in attributions:
        numbers = ending.setdefault(attribution["end"], [])
        if attribution["citation"] + 1 not in numbers:
            numbers.append(attribution["citation"] + 1)
    segments: list[dict[str, Any]] = []
    for start, end in pairwise(bounds):
        covering = [
            index
            for index, attribution in enumerate(attributions)
            if attribution["start"] <= start and end <= attribution["end"]
        ]
        segments.append(
            {"t": content[start:end], "s": start, "e": end, "a": covering, "m": ending.get(end, [])}
        )
    return segments


def is_redirect(citation: Mapping[str, Any]) -> bool:
    """True when the citation's URL is a redirector's (its true target was not known)."""
    raw = citation.get("raw")
    return isinstance(raw, dict) and bool(raw.get("redirect") or raw.get("redirect_only"))


def safe_href(url: Any) -> str | None:
    """``url`` when it is an absolute http(s) URL a link may point to, else None.

    Anything else (``javascript:``, ``data:``, relative, with spaces or control characters) is
    shown as text and never becomes a link.
    """
    if not isinstance(url, str) or not url or len(url) > 8192:
        return None
    if _NOT_IN_LINKS.search(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    if not url.lower().startswith(("http://", "https://")):
        return None
    return url
