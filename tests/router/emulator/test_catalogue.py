"""The answer catalogue and the deterministic fallback behind synthesised replies."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from router.emulator import SCENARIOS, answer_for
from router.emulator.catalogue import topic_of
from router.emulator.sites import SITES

DATA = Path(__file__).resolve().parents[2] / "data"
TOPICS: list[dict[str, Any]] = json.loads((DATA / "emulator_topics.json").read_text())
QUESTIONS = [f"What changed in {subject} this year?" for subject in range(300)] + [
    "How do heat pumps work in cold climates?",
    "What is the EU AI Act?",
    "Who invented the telephone?",
]


@pytest.mark.parametrize("row", TOPICS, ids=[r["why"] for r in TOPICS])
def test_topic_of_question(row: dict[str, Any]) -> None:
    """The fallback's topic is the question without its lead words."""
    assert topic_of(row["input"]) == row["expected"]


def test_same_text_same_answer() -> None:
    """A fallback answer depends only on the text and country, not on call order or cache."""
    first = answer_for("How do heat pumps work in cold climates?")
    answer_for.cache_clear()
    assert answer_for("How do heat pumps work in cold climates?") == first


def test_other_text_other_answer() -> None:
    """Distinct questions get distinct answers."""
    assert answer_for("What is the EU AI Act?") != answer_for("What is the Digital Markets Act?")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.answer.topic for s in SCENARIOS])
def test_scenarios_answer_their_questions(scenario: Any) -> None:
    """Each catalogue scenario answers a question made of its keywords, in any letter case."""
    question = " ".join(scenario.keywords[0]).upper() + "?"
    assert answer_for(question) is scenario.answer


@pytest.mark.parametrize("question", QUESTIONS[-3:])
def test_fallback_cites_one_source_twice(question: str) -> None:
    """Every fallback answer cites some source in two sentences, as real answers do."""
    cites = Counter(i for claim in answer_for(question).claims for i in claim.cites)
    assert max(cites.values()) >= 2


@pytest.mark.parametrize("question", QUESTIONS[-3:])
def test_fallback_text_is_not_ascii(question: str) -> None:
    """Fallback text holds non-ASCII characters, so byte and character offsets differ."""
    assert not answer_for(question).plain_text.isascii()


def test_fallback_sources_span_many_tlds() -> None:
    """Over many questions, cited domains spread across country TLDs, including an IDN."""
    domains = {s.domain for q in QUESTIONS for s in answer_for(q).sources}
    tlds = {d.rsplit(".", 1)[-1] for d in domains}
    assert {"com", "org", "de", "uk", "fr", "jp", "au", "ca", "gov", "int"} <= tlds
    assert "bücher.de" in domains


def test_fallback_sources_cover_every_kind() -> None:
    """News, video and document sources all occur, besides ordinary web pages."""
    kinds = {s.kind for q in QUESTIONS for s in answer_for(q).sources}
    assert kinds == {"web", "news", "video", "doc"}


@pytest.mark.parametrize("country", ["DE", "JP", "FR", "GB"])
def test_user_country_gets_its_own_sites(country: str) -> None:
    """With a user country, at least half the sources are that country's sites."""
    local = {(site.host, site.domain) for site in SITES if site.country == country}
    for question in QUESTIONS[:20]:
        sources = answer_for(question, country).sources
        hits = sum(1 for s in sources if any(s.url.startswith(f"https://{h}/") for h, _ in local))
        assert hits * 2 >= len(sources) - 1, question


def test_weather_questions_get_googles_own_answer() -> None:
    """A weather or time question adds Google's google.com/search result, spaces and all."""
    sources = answer_for("Weather in New York right now", "US").sources
    google = [s for s in sources if s.vertex_only]
    assert [s.url for s in google] == ["https://www.google.com/search?q=weather+in+New York,+US"]


def test_other_questions_have_no_google_result() -> None:
    """Questions that are not about weather or time cite only ordinary pages."""
    assert not any(s.vertex_only for q in QUESTIONS for s in answer_for(q).sources)
