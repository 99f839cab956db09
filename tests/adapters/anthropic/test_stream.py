"""stream() for Anthropic: the real client's SSE from the emulator through the stream reader."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from router.emulator import Emulator
from router.errors import GroundingRequiredFailedError
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings
from router.streaming.events import CitationDelta, Completed, SearchStarted, TextDelta
from router.types import LLMRequest
from support.citations import citation_problems

Ask = Callable[..., LLMRequest]
SCHEMA = {"type": "object", "properties": {"capital": {"type": "string"}}}


def _events(settings: RouterSettings, request: LLMRequest) -> list[Any]:
    with UnifiedLLMAdapter(settings) as router:
        return list(router.stream(request))


def test_grounded_stream_delivers_text_searches_and_citations(
    settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """Text deltas make the content; one SearchStarted per search; citations valid; one call."""
    events = _events(settings, ask(grounded=True, grounding_mode="REQUIRED"))
    assert emulator.requests[0].json["stream"] is True
    completed = events[-1]
    assert isinstance(completed, Completed)
    response = completed.response
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == response.content
    searches = [e for e in events if isinstance(e, SearchStarted)]
    assert len(searches) == response.tool_call_count >= 1
    assert [q for e in searches for q in e.queries] == response.web_search_queries
    latest = {}
    for event in events:
        if isinstance(event, CitationDelta):
            latest[event.citation["url"]] = event.citation
    assert [latest[c["url"]] for c in response.citations] == response.citations
    for citation in response.citations:
        assert citation_problems(citation, response.content, provider="anthropic") == []
    assert len(emulator.requests) == 1


def test_stream_gives_what_route_gives_for_the_same_answer(
    settings: RouterSettings, ask: Ask
) -> None:
    """The streamed response has route()'s content, queries and cited sources."""
    request = ask(grounded=True)
    streamed = _events(settings, request)[-1].response
    with UnifiedLLMAdapter(settings) as router:
        routed = router.route(request)
    assert streamed.content == routed.content
    assert streamed.web_search_queries == routed.web_search_queries
    assert [c["url"] for c in streamed.citations] == [c["url"] for c in routed.citations]


def test_required_stream_without_a_search_fails_closed(settings: RouterSettings, ask: Ask) -> None:
    """REQUIRED grounding is checked at the end: no Completed, a not_invoked error."""
    request = ask(
        "What is the capital of France? [[emulator:fault=no_search]]",
        grounded=True,
        grounding_mode="REQUIRED",
    )
    with pytest.raises(GroundingRequiredFailedError) as raised:
        _events(settings, request)
    assert raised.value.reason == "not_invoked"


def test_grounded_json_streams_prose_then_reshapes(
    settings: RouterSettings, emulator: Emulator, ask: Ask
) -> None:
    """JSON with citations: step 1 streams, the reshape is one more call, parsed at the end."""
    events = _events(settings, ask(grounded=True, json_schema=SCHEMA))
    response = events[-1].response
    assert response.metadata["two_step"] is True
    assert set(response.parsed) == {"capital"}
    first, second = (sent.json for sent in emulator.requests)
    assert first["stream"] is True
    assert "stream" not in second
    assert "tools" not in second


async def test_async_stream(settings: RouterSettings, ask: Ask) -> None:
    """astream() over the async client gives the same kind of answer."""
    async with UnifiedLLMAdapter(settings) as router:
        events = [event async for event in router.astream(ask(grounded=True))]
    assert isinstance(events[-1], Completed)
    assert events[-1].response.citations
