"""make_citation: the uniform dict, redirect-aware domains, sanitised text, copied raw."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from router.citations import dedupe_citations, make_citation, sanitize_text
from router.logging import grounding_debug
from router.types import Citation
from support.logs import capture_logs

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "redirects.json").read_text(encoding="utf-8")
)["make_citation"]

VERTEX_REDIRECT = (
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
    "AUZIYQGsW2AyaM6nRCacXOiclNXGodk_wpxLwn1VqFq5wyu"
)


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_source_domain_derivation(row: dict[str, Any]) -> None:
    """source_domain, url and the redirect flags follow the derivation order of DESIGN.md."""
    citation = make_citation(provider="vertex", **row["input"])
    if row["expected"] is None:
        assert citation is None
        return
    assert citation is not None
    assert citation["url"] == row["expected"]["url"]
    assert citation["source_domain"] == row["expected"]["source_domain"]
    assert (citation["raw"].get("redirect") is True) is row["expected"]["redirect"]
    assert (citation["raw"].get("redirect_only") is True) is row["expected"]["redirect_only"]


def test_redirect_link_flags_say_whether_the_true_domain_is_known() -> None:
    """A redirect link whose domain came from its title is flagged redirect, not redirect_only."""
    citation = make_citation(provider="vertex", url=VERTEX_REDIRECT, title="nytimes.com")
    assert citation is not None
    assert citation["url"] == VERTEX_REDIRECT
    assert {key: citation["raw"][key] for key in ("redirect", "redirect_only")} == {
        "redirect": True,
        "redirect_only": False,
    }


def test_citation_has_exactly_the_twelve_keys() -> None:
    """A citation is a plain dict with exactly the keys of the Citation TypedDict."""
    citation = make_citation(provider="openai", url="https://www.bbc.co.uk/news", rank=1)
    assert citation is not None
    assert type(citation) is dict
    assert set(citation) == set(Citation.__annotations__)
    assert len(citation) == 12


def test_all_fields_carried_and_typed() -> None:
    """Every argument lands in its field: provider, rank, spans, cited, sanitised text."""
    spans = [{"start": 10, "end": 42, "text": "([bbc.co.uk](https://bbc.co.uk))"}]
    citation = make_citation(
        provider="openai",
        url="https://www.bbc.co.uk/news/x?utm_source=openai",
        title="  World\tnews |  BBC\n",
        snippet="Line one\nline two",
        rank=3,
        raw={"type": "url_citation", "start_index": 10},
        spans=spans,  # type: ignore[arg-type]
        cited=True,
        cited_text="  The BBC\nreports ",
        location={"type": "url_citation", "start_index": 10, "end_index": 42},
    )
    assert citation == {
        "provider": "openai",
        "url": "https://www.bbc.co.uk/news/x",
        "source_domain": "bbc.co.uk",
        "title": "World news | BBC",
        "snippet": "Line one line two",
        "source_type": "news",
        "rank": 3,
        "raw": {"type": "url_citation", "start_index": 10},
        "spans": spans,
        "cited": True,
        "cited_text": "The BBC reports",
        "location": {"type": "url_citation", "start_index": 10, "end_index": 42},
    }
    assert citation["spans"] is not spans
    assert citation["spans"][0] is not spans[0]


def test_snippet_cut_to_two_hundred_characters_then_ellipsis() -> None:
    """A long snippet keeps its first 200 characters and gains '…' after them (201 in all)."""
    text = " ".join(f"{n:03}" for n in range(100))  # no whitespace runs: cleaning keeps it
    citation = make_citation(provider="vertex", url="https://example.com/a", snippet=text)
    assert citation is not None
    assert citation["snippet"] == text[:200] + "…"


def test_snippet_of_two_hundred_characters_is_not_cut() -> None:
    """A snippet of exactly 200 characters is kept whole, with no '…'."""
    text = "x" * 200
    citation = make_citation(provider="vertex", url="https://example.com/a", snippet=text)
    assert citation is not None
    assert citation["snippet"] == text


def test_control_characters_removed_from_title_and_snippet() -> None:
    """C0/C1 controls and lone surrogates never reach a citation's text."""
    citation = make_citation(
        provider="vertex",
        url="https://example.com/a",
        title="Ti\x00tle\x07 \x9bhere\ud800",
        snippet="\x1b[31mred\x1b[0m",
    )
    assert citation is not None
    assert citation["title"] == "Title here"
    assert citation["snippet"] == "[31mred[0m"


def test_blank_title_and_snippet_become_none() -> None:
    """Empty or whitespace-only text is None, not ''."""
    citation = make_citation(
        provider="vertex", url="https://example.com/a", title="", snippet=" \n"
    )
    assert citation is not None
    assert citation["title"] is None
    assert citation["snippet"] is None


def test_raw_is_a_copy_and_the_callers_object_is_untouched() -> None:
    """raw is a deep JSON-able copy; the redirect flag never lands in the caller's object."""
    provider_object = {"web": {"uri": VERTEX_REDIRECT, "title": "Weather"}, "scores": (0.5, 1)}
    before = copy.deepcopy(provider_object)
    citation = make_citation(provider="vertex", url=VERTEX_REDIRECT, raw=provider_object)
    assert citation is not None
    assert provider_object == before
    assert citation["raw"] == {
        "web": {"uri": VERTEX_REDIRECT, "title": "Weather"},
        "scores": [0.5, 1],
        "redirect": True,
        "redirect_only": True,
    }
    citation["raw"]["web"]["title"] = "changed"
    assert provider_object["web"]["title"] == "Weather"  # type: ignore[index]
    json.dumps(citation)


def test_raw_turns_sdk_models_and_odd_values_into_json() -> None:
    """SDK (pydantic) models, bytes, NaN and other objects in raw become JSON values."""

    class Web(BaseModel):
        uri: str
        domain: str | None = None

    raw = {"web": Web(uri="https://example.com"), "blob": b"\x00\x01", "score": float("nan")}
    citation = make_citation(provider="vertex", url="https://example.com", raw=raw)
    assert citation is not None
    assert citation["raw"] == {"web": {"uri": "https://example.com"}, "blob": "AAE=", "score": None}
    json.dumps(citation, allow_nan=False)


def test_forced_source_type_wins() -> None:
    """A forced source_type (RAG chunks as "doc") replaces the classification."""
    citation = make_citation(
        provider="vertex", url="https://example.com/a", domain_hint=None, source_type="doc"
    )
    assert citation is not None
    assert citation["source_type"] == "doc"


def test_redirect_only_citation_has_unknown_type() -> None:
    """When only the redirector is known, the source type is unknown."""
    citation = make_citation(provider="vertex", url=VERTEX_REDIRECT, title="Weather in Paris")
    assert citation is not None
    assert citation["source_type"] == "unknown"


def test_domain_from_title_is_classified_by_domain() -> None:
    """A domain learnt from the title classifies like that domain's home page."""
    citation = make_citation(provider="vertex", url=VERTEX_REDIRECT, title="youtube.com")
    assert citation is not None
    assert citation["source_type"] == "video"


@pytest.mark.parametrize("rank", [0, -1, True, "2", 1.5])
def test_invalid_rank_becomes_none(rank: object) -> None:
    """Only positive integers are ranks."""
    citation = make_citation(provider="openai", url="https://example.com", rank=rank)  # type: ignore[arg-type]
    assert citation is not None
    assert citation["rank"] is None


def test_debug_events_say_how_the_domain_was_derived() -> None:
    """With grounding debug on, each citation logs how its domain was derived."""
    with grounding_debug(True), capture_logs() as events:
        make_citation(provider="vertex", url=VERTEX_REDIRECT, title="pydantic.dev", rank=2)
        make_citation(provider="vertex", url=VERTEX_REDIRECT, title="Weather", rank=3)
    derived = [e for e in events if e["event"] == "citation_domain_derived"]
    assert [(e["how"], e["source_domain"], e["rank"]) for e in derived] == [
        ("title", "pydantic.dev", 2),
        ("redirector", "google.com", 3),
    ]
    assert all(e["log_level"] == "debug" for e in derived)


def test_debug_event_says_why_a_citation_was_dropped() -> None:
    """With grounding debug on, a dropped citation logs the reason."""
    with grounding_debug(True), capture_logs() as events:
        dropped = make_citation(
            provider="openai", url="javascript:void(0)", rank=4, origin="annotation"
        )
        assert dropped is None
    assert events == [
        {
            "event": "citation_dropped",
            "log_level": "debug",
            "provider": "openai",
            "origin": "annotation",
            "rank": 4,
            "reason": "no_source_domain",
            "had_url": True,
            "nested_url_count": 0,
        }
    ]


def test_no_events_without_grounding_debug() -> None:
    """Without grounding debug, building and dropping citations logs nothing."""
    with capture_logs() as events:
        make_citation(provider="vertex", url=VERTEX_REDIRECT, title="pydantic.dev")
        make_citation(provider="vertex", url=None)
    assert events == []


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("plain", None, "plain"),
        ("  spaced \t out \n", None, "spaced out"),
        ("abcdef", 4, "abc…"),
        ("abcd", 4, "abcd"),
        ("ab   cdef", 4, "ab…"),
        ("\x00\x01", None, None),
        (None, None, None),
        (42, None, None),
    ],
    ids=[
        "plain",
        "whitespace",
        "cut",
        "fits",
        "cut-trims",
        "only-controls",
        "none",
        "number",
    ],
)
def test_sanitize_text(text: object, limit: int | None, expected: str | None) -> None:
    """sanitize_text removes controls, collapses whitespace and cuts with '…' at the limit."""
    assert sanitize_text(text, limit=limit) == expected


def test_cited_text_cut_to_five_hundred_characters() -> None:
    """A long quoted passage is cleaned and cut to at most 500 characters, ending in '…'."""
    citation = make_citation(
        provider="openai", url="https://example.com/a", cited_text="quote\x07 " * 200
    )
    assert citation is not None
    cited_text = citation["cited_text"]
    assert cited_text is not None
    assert len(cited_text) <= 500
    assert cited_text.endswith("…")
    assert "\x07" not in cited_text


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        (
            {"type": "grounding_chunk", "chunk_index": 2},
            {"type": "grounding_chunk", "chunk_index": 2},
        ),
        (
            {"type": "url_citation", "start_index": -1, "end_index": 5},
            {"type": "url_citation", "end_index": 5},
        ),
        ({"type": "page_location", "start_page_number": "3"}, {"type": "page_location"}),
        (
            {"type": "char_location", "document_title": "Re\x1bport", "document_index": 0},
            {"type": "char_location", "document_title": "Report", "document_index": 0},
        ),
        ({"type": "char_location", "nested": {"a": 1}, "extra": 1}, {"type": "char_location"}),
        ({"type": "made_up_location"}, None),
        ({"start_index": 1}, None),
    ],
    ids=[
        "kept",
        "negative-index-dropped",
        "string-index-dropped",
        "title-cleaned",
        "unknown-keys-dropped",
        "unknown-kind",
        "no-kind",
    ],
)
def test_location_is_a_clean_copy(location: dict[str, object], expected: object) -> None:
    """A location keeps its kind and the schema's keys: non-negative indices, clean text."""
    citation = make_citation(
        provider="openai",
        url="https://example.com/a",
        location=location,  # type: ignore[arg-type]
    )
    assert citation is not None
    assert citation["location"] == expected
    assert citation["location"] is not location


def test_merge_keeps_the_first_cited_text_and_location() -> None:
    """Duplicates merge into the earliest rank, filling its empty cited text and location."""
    first = make_citation(provider="openai", url="https://example.com/a", rank=1)
    second = make_citation(
        provider="openai",
        url="https://example.com/a?utm_source=openai",
        rank=2,
        cited_text="passage",
        location={"type": "url_citation", "start_index": 4, "end_index": 9},
    )
    assert first is not None
    assert second is not None
    (merged,) = dedupe_citations([second, first])
    assert merged["rank"] == 1
    assert merged["cited_text"] == "passage"
    assert merged["location"] == {"type": "url_citation", "start_index": 4, "end_index": 9}


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [("abcdef", 4, "abcd…"), ("abcd", 4, "abcd"), ("ab   cdef", 4, "ab c…")],
    ids=["cut", "fits", "cut-keeps-the-space"],
)
def test_sanitize_text_ellipsis_after_limit(text: str, limit: int, expected: str) -> None:
    """With ellipsis_after, a cut keeps the first `limit` characters and appends '…'."""
    assert sanitize_text(text, limit=limit, ellipsis_after=True) == expected
