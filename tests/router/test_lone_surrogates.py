"""Lone surrogates in a provider's reply never make a response that cannot be written.

A reply whose JSON carries ``\\ud800``-style escapes decodes to text UTF-8 cannot encode. The
router replaces each lone surrogate with U+FFFD, keeping every offset, so the response
serialises and its spans still match its content.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from router.emulator import Emulator
from router.router import UnifiedLLMAdapter
from router.text.lone_surrogates import scrub, scrub_value
from support.emulated import emulator_settings, grounded_request

RECORDED = (
    Path(__file__).parents[1]
    / "data"
    / "recorded"
    / "pydantic-ai"
    / "openai_responses_news_3_citations.json"
)


def test_scrub_keeps_length_and_clean_text() -> None:
    """Each lone surrogate becomes one U+FFFD; clean text is returned as the same object."""
    assert scrub("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    clean = "Café 😀"
    assert scrub(clean) is clean
    assert scrub_value({"k\ud800": ["x\udc00", 3]}) == {"k\ufffd": ["x\ufffd", 3]}


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as running:
        yield running


def test_reply_with_lone_surrogates_gives_a_writable_response(emulator: Emulator) -> None:
    """Content, spans and search queries are scrubbed alike; the response serialises."""
    body = json.loads(RECORDED.read_text(encoding="utf-8"))
    message = next(item for item in body["output"] if item["type"] == "message")
    part = message["content"][0]
    start = part["annotations"][0]["start_index"]
    part["text"] = part["text"][:start] + "\ud800" + part["text"][start + 1 :]
    search = next(item for item in body["output"] if item["type"] == "web_search_call")
    search["action"]["query"] = "broken \udc80 query"
    emulator.enqueue_reply("openai", json.dumps(body).encode())
    with UnifiedLLMAdapter(emulator_settings(emulator)) as router:
        response = router.route(grounded_request("openai", "news"))
    assert response.content[start] == "\ufffd"
    assert "broken \ufffd query" in response.web_search_queries
    spans = [span for citation in response.citations for span in citation["spans"]]
    assert any(span["start"] == start for span in spans)
    for span in spans:
        assert response.content[span["start"] : span["end"]] == span["text"]
    assert json.loads(response.model_dump_json())["content"] == response.content


def test_every_text_of_an_assembled_response_is_scrubbed() -> None:
    """Wherever the adapter's result holds a lone surrogate (nested metadata, a dict key, the
    JSON answer, a span, an attribution, a warning), the response holds U+FFFD instead, and a
    result with none is assembled from the same texts."""
    from adapters.base import AdapterResult
    from router.respond import assemble_response
    from router.types import LLMRequest

    request = LLMRequest(
        vendor="openai", model="gpt-4.1", messages=[{"role": "user", "content": "q"}]
    )
    citation = {
        "provider": "openai",
        "url": "https://example.com/",
        "source_domain": "example.com",
        "title": None,
        "snippet": None,
        "source_type": "web",
        "rank": 1,
        "raw": {},
        "spans": [{"start": 0, "end": 2, "text": "a\udc00"}],
        "cited": True,
        "cited_text": None,
        "location": None,
    }
    attribution = {"start": 0, "end": 2, "text": "a\ud800", "cited_text": None, "citations": [1]}
    result = AdapterResult(
        content="ab",
        parsed={"k": ["x\ud800"]},
        model_version="m\udfff",
        citations=[citation],  # type: ignore[list-item]
        attributions=[attribution],  # type: ignore[list-item]
        warnings=["w\ud800"],
        metadata={"deep": [{"\udbff": "y"}]},
    )
    response = assemble_response(request, result, attempts=1, latency_ms=0.0)
    json.dumps(response.model_dump(), ensure_ascii=False).encode("utf-8")  # no surrogate left
    assert response.metadata["deep"] == [{"\ufffd": "y"}]
    assert response.citations[0]["spans"][0]["text"] == "a\ufffd"
    assert response.attributions[0]["text"] == "a\ufffd"
    assert response.parsed == {"k": ["x\ufffd"]}
    assert response.model_version == "m\ufffd"
    assert response.metadata["warnings"] == ["w\ufffd"]

    clean = AdapterResult(content="ab", parsed={"k": ["x"]}, metadata={"deep": [{"z": "y"}]})
    assembled = assemble_response(request, clean, attempts=1, latency_ms=0.0)
    assert assembled.parsed == {"k": ["x"]}
    assert assembled.metadata["deep"] == [{"z": "y"}]
