"""The real openai client against the emulator's Responses API: JSON replies and their quirks."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import openai
import pytest
from openai.types.responses import Response
from pydantic import BaseModel

from router.emulator import Emulator

SEARCH: list[Any] = [{"type": "web_search"}]
SOURCES: list[Any] = ["web_search_call.action.sources"]
PARIS = "What is the capital of France?"
ZUGSPITZE = "Wie hoch ist die Zugspitze?"


def grounded(client: openai.OpenAI, question: str, **extra: Any) -> Response:
    return client.responses.create(model="gpt-5.2", input=question, tools=SEARCH, **extra)


def annotations(response: Response) -> list[Any]:
    message = next(item for item in response.output if item.type == "message")
    return list(message.content[0].annotations)  # type: ignore[union-attr]


def searches(response: Response) -> list[Any]:
    return [item for item in response.output if item.type == "web_search_call"]


def test_markers_are_covered_by_annotations(openai_client: openai.OpenAI) -> None:
    """Each url_citation spans its inline `([host](url))` marker, parentheses included."""
    response = grounded(openai_client, PARIS)
    text = response.output_text
    for note in annotations(response):
        marker = text[note.start_index : note.end_index]
        assert marker.startswith("([")
        assert marker.endswith(f"]({note.url}))")
        assert not marker[2:].startswith("www.")


def test_offsets_count_code_points(openai_client: openai.OpenAI) -> None:
    """Offsets index Python characters, not UTF-8 bytes, over non-ASCII text."""
    response = grounded(openai_client, ZUGSPITZE)
    text = response.output_text
    last = annotations(response)[-1]
    assert not text[: last.start_index].isascii()
    assert text[last.start_index : last.end_index].startswith("([")
    assert not text.encode()[last.start_index : last.end_index].startswith(b"([")


def test_a_url_is_cited_more_than_once(openai_client: openai.OpenAI) -> None:
    """One annotation per citing sentence: the same URL appears in several annotations."""
    urls = Counter(note.url for note in annotations(grounded(openai_client, PARIS)))
    assert max(urls.values()) >= 2


def test_opened_page_is_cited_without_utm(openai_client: openai.OpenAI) -> None:
    """A URL reached by open_page is cited bare; utm, where present, is the last parameter."""
    response = grounded(openai_client, PARIS)
    opened = {s.action.url for s in searches(response) if s.action.type == "open_page"}
    assert opened
    for note in annotations(response):
        if note.url in opened:
            assert "utm_source" not in note.url
        elif "utm_source" in note.url:
            assert note.url.endswith(("?utm_source=openai", "&utm_source=openai"))
    assert any("utm_source=openai" in note.url for note in annotations(response))


def test_utm_follows_an_existing_query_with_an_ampersand(openai_client: openai.OpenAI) -> None:
    """A cited URL that already has a query gets `&utm_source=openai` appended."""
    notes = [
        note
        for question in ("What is the boiling point of water?", "Who wrote Pride and Prejudice?")
        for note in annotations(grounded(openai_client, question))
    ]
    assert any(note.url.endswith("&utm_source=openai") for note in notes)


def test_several_search_calls_with_query_and_queries(openai_client: openai.OpenAI) -> None:
    """Several web_search_call items; a search action has `query` equal to `queries[0]`."""
    calls = searches(grounded(openai_client, "What is the tallest mountain in Alberta?"))
    assert len(calls) >= 2
    actions = [c.action for c in calls if c.action.type == "search"]
    assert actions
    assert all(a.query == a.queries[0] for a in actions)


def test_sources_only_when_include_asks(openai_client: openai.OpenAI) -> None:
    """`action.sources` appears with include=[...action.sources] only, and never with utm."""
    without = grounded(openai_client, PARIS)
    assert all(c.action.sources is None for c in searches(without) if c.action.type == "search")
    listed = [
        source.url
        for call in searches(grounded(openai_client, PARIS, include=SOURCES))
        if call.action.type == "search"
        for source in call.action.sources or []
    ]
    assert listed
    assert not any("utm_source" in url for url in listed)


def test_user_location_prefers_local_sites(openai_client: openai.OpenAI) -> None:
    """With user_location.country FR, French sites dominate the citations."""
    tools = [{"type": "web_search", "user_location": {"type": "approximate", "country": "FR"}}]
    response = openai_client.responses.create(
        model="gpt-4o", input="How do heat pumps work in cold climates?", tools=tools
    )
    hosts = {note.url.split("/")[2] for note in annotations(response)}
    assert any(host.endswith(".fr") for host in hosts)


def test_googles_own_weather_result_is_never_an_openai_citation(
    openai_client: openai.OpenAI,
) -> None:
    """google.com/search results belong to Vertex; OpenAI cites the weather sites instead."""
    response = grounded(openai_client, "What's the weather in San Francisco right now?")
    urls = [note.url for note in annotations(response)]
    assert urls
    assert not any("google.com/search" in url for url in urls)


def test_ungrounded_request_gets_a_plain_answer(openai_client: openai.OpenAI) -> None:
    """Without tools there is no search call and no annotation."""
    response = openai_client.responses.create(model="gpt-4o", input=PARIS)
    assert [item.type for item in response.output] == ["message"]
    assert annotations(response) == []
    assert "Paris" in response.output_text


def test_tool_choice_none_does_not_search(openai_client: openai.OpenAI) -> None:
    """tool_choice="none" keeps the model from searching although the tool is offered."""
    response = grounded(openai_client, PARIS, tool_choice="none")
    assert searches(response) == []


def test_reasoning_models_add_reasoning_items(openai_client: openai.OpenAI) -> None:
    """gpt-5 family replies interleave reasoning items, as recorded bodies do."""
    kinds = [item.type for item in grounded(openai_client, PARIS).output]
    assert "reasoning" in kinds
    assert kinds[-1] == "message"


class Capital(BaseModel):
    city: str
    country: str
    population: int
    summary: str


def test_structured_output_parses_and_keeps_cite_tokens(openai_client: openai.OpenAI) -> None:
    """responses.parse() gets schema-valid JSON whose free text carries the cite tokens."""
    parsed = openai_client.responses.parse(
        model="gpt-5.2", input=PARIS, tools=SEARCH, text_format=Capital
    )
    assert parsed.output_parsed is not None
    assert "\ue200cite\ue202turn0search" in parsed.output_parsed.summary
    assert searches(parsed)


def test_json_object_needs_the_word_json(openai_client: openai.OpenAI) -> None:
    """json_object mode is refused unless the input mentions JSON, as the API does."""
    with pytest.raises(openai.BadRequestError):
        openai_client.responses.create(
            model="gpt-4o", input=PARIS, text={"format": {"type": "json_object"}}
        )
    reply = openai_client.responses.create(
        model="gpt-4o", input=f"{PARIS} Answer in JSON.", text={"format": {"type": "json_object"}}
    )
    assert isinstance(json.loads(reply.output_text), dict)


def test_missing_model_is_a_bad_request(openai_client: openai.OpenAI) -> None:
    """A request without a model gets the API's 400 naming the parameter."""
    with pytest.raises(openai.BadRequestError) as caught:
        openai_client.post("/responses", body={"input": PARIS}, cast_to=Response)
    assert caught.value.param == "model"


def test_usage_adds_up(openai_client: openai.OpenAI) -> None:
    """Usage totals are the sum of input and output; searching costs input tokens."""
    usage = grounded(openai_client, PARIS).usage
    assert usage is not None
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert usage.input_tokens > 1000


def test_same_question_same_answer(openai_client: openai.OpenAI) -> None:
    """Synthesis is deterministic: the same request gets the same text and citations."""
    first, second = (
        grounded(openai_client, "Why is the sky blue?"),
        grounded(openai_client, "Why is the sky blue?"),
    )
    assert first.output_text == second.output_text
    assert first.id != second.id


def test_request_is_logged(openai_client: openai.OpenAI, emulator: Emulator) -> None:
    """The request log holds the path, the headers and the parsed body."""
    grounded(openai_client, PARIS)
    (logged,) = emulator.requests
    assert logged.path == "/v1/responses"
    assert logged.api == "openai"
    assert logged.headers["authorization"] == "Bearer sk-test"
    assert logged.json["input"] == PARIS


@pytest.mark.asyncio
async def test_async_client_gets_a_grounded_answer(
    async_openai_client: openai.AsyncOpenAI,
) -> None:
    """AsyncOpenAI works the same way over the loopback."""
    response = await async_openai_client.responses.create(model="gpt-4o", input=PARIS, tools=SEARCH)
    assert annotations(response)
