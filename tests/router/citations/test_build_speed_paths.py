"""The fast paths of make_citation and sanitize_text give what the plain computation gives."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from router.citations import make_citation, sanitize_text
from router.logging import grounding_debug
from support.logs import capture_logs

_WHITESPACE_RUN = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_ODD_CHARACTERS = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2028\u3000\x00\x7f\x9f\ud800\u200b\ue200é"


def _reference_sanitize(text: str, limit: int | None, ellipsis_after: bool) -> str | None:
    """sanitize_text as the contract states it: collapse, remove controls, trim, then cut."""
    cleaned = _CONTROL.sub("", _WHITESPACE_RUN.sub(" ", text)).strip()
    if not cleaned:
        return None
    if limit is not None and len(cleaned) > limit:
        if ellipsis_after:
            return cleaned[:limit] + "…"
        cleaned = cleaned[: max(limit - 1, 0)].rstrip() + "…"
    return cleaned


_texts = st.one_of(
    st.text(alphabet=st.sampled_from(_ODD_CHARACTERS + "ab.")),
    st.text(alphabet=st.sampled_from(_ODD_CHARACTERS + "ab."), min_size=700, max_size=1500),
    st.text(),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts, st.sampled_from([None, 0, 1, 5, 200]), st.booleans())
def test_sanitize_text_matches_the_plain_computation(
    text: str, limit: int | None, ellipsis_after: bool
) -> None:
    """str.split whitespace, the printable shortcut and the head-only cut change nothing."""
    expected = _reference_sanitize(text, limit, ellipsis_after)
    assert sanitize_text(text, limit=limit, ellipsis_after=ellipsis_after) == expected


def test_repeated_builds_are_equal() -> None:
    """The second build of the same source equals the first: nothing carries over between builds."""
    arguments = {"provider": "vertex", "url": "https://www.bbc.co.uk/news?utm_source=x"}
    first = make_citation(**arguments, title="BBC News", rank=1)  # type: ignore[arg-type]
    second = make_citation(**arguments, title="BBC News", rank=1)  # type: ignore[arg-type]
    assert first == second
    assert first is not None
    assert first["url"] == "https://www.bbc.co.uk/news"
    assert first["source_domain"] == "bbc.co.uk"


def test_unhashable_inputs_still_build() -> None:
    """Odd values from a malformed reply bypass the cache instead of failing."""
    citation = make_citation(provider="openai", url="https://a.com", title=["not", "text"])  # type: ignore[arg-type]
    assert citation is not None
    assert citation["title"] is None


def test_debug_events_on_cache_hits_too() -> None:
    """Every build logs how its domain was derived, cached or not."""
    with grounding_debug(True), capture_logs() as events:
        for rank in (1, 2):
            make_citation(provider="openai", url="https://example.org/a", rank=rank)
    derived = [(e["rank"], e["how"]) for e in events if e["event"] == "citation_domain_derived"]
    assert derived == [(1, "url"), (2, "url")]


def test_citations_do_not_share_mutable_parts() -> None:
    """Two builds from the same cached derivation hand out separate raw dicts and span lists."""
    raw = {"type": "url", "url": "https://a.com/x"}
    span = {"start": 0, "end": 1, "text": "x"}
    first = make_citation(provider="openai", url="https://a.com/x", raw=raw, spans=[span])  # type: ignore[list-item]
    second = make_citation(provider="openai", url="https://a.com/x", raw=raw, spans=[span])  # type: ignore[list-item]
    assert first is not None
    assert second is not None
    first["raw"]["url"] = "changed"
    first["spans"][0]["text"] = "changed"
    assert second["raw"]["url"] == raw["url"] == "https://a.com/x"
    assert second["spans"][0]["text"] == span["text"] == "x"
