"""Stored Sonar replies read by ``extract`` as the complete replies they are.

Every recorded Sonar reply carries ``choices[0].delta`` beside its ``message``, and every Sonar
stream chunk carries the ``message`` so far beside its ``delta``: only ``object`` tells a
``chat.completion`` from a ``chat.completion.chunk``. ``extract`` must read a stored reply as
``route()`` does (the reply mapper on the body), and a stored stream as a stream.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from adapters.openai_compatible.stream import is_chat_chunk
from adapters.perplexity.reply import map_perplexity_reply
from adapters.registry import provider
from router import extract
from router.types import LLMRequest
from support.recorded import RECORDED_DIR, load_events, load_final_body

WITH_DELTA = [
    RECORDED_DIR / "ruby_llm" / "perplexity_sonar_raw_response_delta.json",
    RECORDED_DIR / "ruby_llm" / "perplexity_sonar_reasoning_pro_think_delta.json",
    RECORDED_DIR / "ruby_llm" / "perplexity_sonar_search_results.json",
    RECORDED_DIR / "prism" / "perplexity_sonar_citations_search_results.json",
]
STREAM = RECORDED_DIR / "ruby_llm" / "perplexity_sonar_stream.sse.txt"
CHAT_VENDORS = ["perplexity", "openrouter", "openai"]


def _request(body: dict[str, Any]) -> LLMRequest:
    return LLMRequest.model_validate(
        {
            "vendor": "perplexity",
            "model": body["model"],
            "grounded": True,
            "messages": [
                {"role": "user", "content": "(a stored reply: the question was not recorded)"}
            ],
        }
    )


@pytest.mark.parametrize("path", WITH_DELTA, ids=[p.name for p in WITH_DELTA])
def test_a_stored_reply_with_a_delta_reads_as_the_mapper_reads_it(path: Path) -> None:
    """extract() of a Sonar reply that carries a delta gives the mapper's answer and sources."""
    body = load_final_body(path)
    assert "delta" in body["choices"][0]
    assert "message" in body["choices"][0]
    expected = map_perplexity_reply(body, _request(body))
    response = extract("perplexity", path.read_text(encoding="utf-8"))
    assert response.content == expected.content != ""
    assert response.citations == expected.citations
    assert response.metadata["warnings"] == []


def test_the_markers_of_a_stored_reply_are_cited_spans() -> None:
    """The [2][1] markers of the stored sonar reply cite sources 2 and 1, with their spans."""
    response = extract("perplexity", WITH_DELTA[0].read_text(encoding="utf-8"))
    assert response.content == "The capital of **France** is **Paris**.[2][1]"
    cited = {citation["rank"]: citation for citation in response.citations if citation["cited"]}
    assert set(cited) == {1, 2}
    assert cited[2]["spans"] == [{"start": 39, "end": 42, "text": "[2]"}]
    assert cited[1]["spans"] == [{"start": 42, "end": 45, "text": "[1]"}]


def test_a_stored_stream_still_reads_as_a_stream() -> None:
    """The recorded Sonar SSE, whose chunks carry a message too, gives the joined deltas."""
    response = extract("perplexity", STREAM.read_text(encoding="utf-8"))
    assert response.content == "1 2 3"
    assert response.metadata["warnings"] == []
    assert len(response.citations) == len(load_events(STREAM)[-1]["search_results"])


def test_one_stored_stream_chunk_is_a_stream_event() -> None:
    """A single Sonar chunk (object chat.completion.chunk, message beside delta) is an event."""
    first = load_events(STREAM)[0]
    assert "message" in first["choices"][0]
    assert provider("perplexity").stream_format().is_stream_event(first)  # type: ignore[union-attr]


@pytest.mark.parametrize("vendor", CHAT_VENDORS)
def test_every_chat_reader_tells_a_reply_from_a_chunk_by_its_object(vendor: str) -> None:
    """For each chat-completions reader, object decides; delta or message alone does not."""
    reader = provider(vendor).stream_format()
    assert reader is not None
    body = json.loads(WITH_DELTA[0].read_text(encoding="utf-8"))
    chunk = copy.deepcopy(body)
    chunk["object"] = "chat.completion.chunk"
    bare_chunk = {"choices": [{"index": 0, "delta": {"content": "x"}}]}
    bare_reply = {"choices": [{"index": 0, "message": {"content": "x"}, "delta": {}}]}
    assert reader.is_stream_event(body) is False
    assert reader.is_stream_event(chunk) is True
    assert reader.is_stream_event(bare_chunk) is True
    assert reader.is_stream_event(bare_reply) is False
    assert is_chat_chunk({**body, "object": "chat.completion.done"}) is True


def test_openrouter_reads_a_stored_reply_with_a_delta() -> None:
    """extract("openrouter") of a complete reply with a delta beside its message reads it."""
    body = load_final_body(
        RECORDED_DIR / "pydantic-ai" / "openrouter_chat_completions_url_citation.normalized.json"
    )
    body = copy.deepcopy(body)
    body["object"] = "chat.completion"
    body["choices"][0]["delta"] = {"role": "assistant", "content": ""}
    response = extract("openrouter", body)
    assert response.content == body["choices"][0]["message"]["content"] != ""
    assert len(response.citations) == 5
