"""The real google-genai client (vertexai=True) against the emulator's generateContent."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import jsonschema
import pytest
from google import genai
from google.genai import types
from pydantic import BaseModel

from router.emulator import REDIRECT_PREFIX, Emulator

MODEL = "gemini-2.5-flash"
ZUGSPITZE = "Wie hoch ist die Zugspitze?"
WEATHER = "What's the weather in San Francisco right now?"
SEARCH_TOOL = [types.Tool(google_search=types.GoogleSearch())]
# With aiohttp installed, genai's async transport is aiohttp, and genai subclasses
# aiohttp.ClientSession, which aiohttp deprecates; the warning is theirs, not the emulator's.
GENAI_AIOHTTP_WARNING = pytest.mark.filterwarnings(
    "ignore:Inheritance class AiohttpClientSession from ClientSession:DeprecationWarning"
)


def ask(client: genai.Client, question: str, **config: Any) -> types.GenerateContentResponse:
    return client.models.generate_content(
        model=MODEL,
        contents=question,
        config=types.GenerateContentConfig(tools=SEARCH_TOOL, **config),
    )


def metadata(response: types.GenerateContentResponse) -> types.GroundingMetadata:
    assert response.candidates
    found = response.candidates[0].grounding_metadata
    assert found is not None
    return found


def raw_generate(
    emulator: Emulator, body: dict[str, Any], method: str = "generateContent"
) -> bytes:
    path = f"/v1beta1/projects/p/locations/us-central1/publishers/google/models/{MODEL}:{method}"
    request = urllib.request.Request(
        emulator.vertex_base_url + path,
        data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer test", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as reply:
        return bytes(reply.read())


def test_chunks_are_redirects_titled_by_domain(vertex_client: genai.Client) -> None:
    """Search chunks link through grounding-api-redirect and are titled by bare domain."""
    chunks = metadata(ask(vertex_client, ZUGSPITZE)).grounding_chunks or []
    assert chunks
    for chunk in chunks:
        assert chunk.web is not None
        assert chunk.web.uri
        assert chunk.web.uri.startswith(REDIRECT_PREFIX)
        assert chunk.web.title
        assert "/" not in chunk.web.title
        assert not chunk.web.title.startswith("www.")
        assert chunk.web.domain in (None, chunk.web.title)


def test_web_domain_is_on_some_chunks_only(vertex_client: genai.Client) -> None:
    """`web.domain` is present on some chunks and absent on others."""
    questions = [ZUGSPITZE, "Who wrote Pride and Prejudice?", "What is the capital of France?"]
    chunks = [c for q in questions for c in metadata(ask(vertex_client, q)).grounding_chunks or []]
    presence = {chunk.web.domain is not None for chunk in chunks if chunk.web}
    assert presence == {True, False}


def test_one_domain_under_two_redirects(vertex_client: genai.Client) -> None:
    """Two pages of one site are two chunks with the same title and distinct URIs."""
    chunks = metadata(ask(vertex_client, WEATHER)).grounding_chunks or []
    pages = [c.web.uri for c in chunks if c.web and c.web.title == "wunderground.com"]
    assert len(pages) == 2
    assert len(set(pages)) == 2


def test_weather_chunk_is_google_search_with_spaces(vertex_client: genai.Client) -> None:
    """Google's own weather answer is a google.com/search chunk with literal spaces."""
    chunks = metadata(ask(vertex_client, WEATHER)).grounding_chunks or []
    uris = [c.web.uri for c in chunks if c.web and c.web.uri]
    assert any(u.startswith("https://www.google.com/search?q=") and " " in u for u in uris)


def test_support_offsets_are_utf8_bytes(vertex_client: genai.Client) -> None:
    """Byte slices of the text reproduce every segment; character slices do not all agree."""
    response = ask(vertex_client, ZUGSPITZE)
    text = response.text or ""
    supports = metadata(response).grounding_supports or []
    assert supports
    by_bytes = by_chars = 0
    for support in supports:
        segment = support.segment
        assert segment is not None
        start, end = segment.start_index or 0, segment.end_index or 0
        by_bytes += text.encode()[start:end].decode() == segment.text
        by_chars += text[start:end] == segment.text
    assert by_bytes == len(supports)
    assert by_chars < len(supports)


def test_zero_start_index_is_omitted(emulator: Emulator) -> None:
    """The support that starts the text has no startIndex key, as proto3 JSON omits zeros."""
    body = {
        "contents": [{"role": "user", "parts": [{"text": ZUGSPITZE}]}],
        "tools": [{"googleSearch": {}}],
    }
    reply = json.loads(raw_generate(emulator, body))
    segments = [
        s["segment"] for s in reply["candidates"][0]["groundingMetadata"]["groundingSupports"]
    ]
    assert "startIndex" not in segments[0]
    assert all(s["startIndex"] > 0 for s in segments[1:])


def test_chunk_indices_are_not_sorted(vertex_client: genai.Client) -> None:
    """Supports citing several chunks list them out of order, as real ones do."""
    supports = metadata(ask(vertex_client, ZUGSPITZE)).grounding_supports or []
    lists = [s.grounding_chunk_indices or [] for s in supports]
    assert any(indices != sorted(indices) for indices in lists)


def test_queries_and_search_entry_point(vertex_client: genai.Client) -> None:
    """webSearchQueries and the Search Suggestions widget come with every grounded answer."""
    found = metadata(ask(vertex_client, ZUGSPITZE))
    assert found.web_search_queries == ["Zugspitze Höhe", "höchster Berg Deutschlands"]
    assert found.search_entry_point is not None
    html = found.search_entry_point.rendered_content or ""
    assert html.startswith("<style>")
    assert html.count(f'<a class="chip" href="{REDIRECT_PREFIX}') == 2


def test_html_is_escaped_in_the_json(emulator: Emulator) -> None:
    """On the wire Google escapes <, > and & inside strings (\\u003c...)."""
    body = {"contents": [{"parts": [{"text": ZUGSPITZE}]}], "tools": [{"googleSearch": {}}]}
    raw = raw_generate(emulator, body)
    assert b"\\u003cstyle\\u003e" in raw
    assert b"<style>" not in raw


def test_ungrounded_request_has_no_grounding(vertex_client: genai.Client) -> None:
    """Without the search tool the candidate has no groundingMetadata at all."""
    response = vertex_client.models.generate_content(model=MODEL, contents=ZUGSPITZE)
    assert response.candidates
    assert response.candidates[0].grounding_metadata is None
    assert "Zugspitze" in (response.text or "")


def test_usage_adds_up(vertex_client: genai.Client) -> None:
    """totalTokenCount is prompt + candidates + tool-use prompt + thoughts tokens."""
    usage = ask(vertex_client, ZUGSPITZE).usage_metadata
    assert usage is not None
    parts = [
        usage.prompt_token_count,
        usage.candidates_token_count,
        usage.tool_use_prompt_token_count,
        usage.thoughts_token_count,
    ]
    assert all(parts)
    assert usage.total_token_count == sum(p or 0 for p in parts)


class Book(BaseModel):
    title: str
    author: str
    year: int
    summary: str


def test_response_schema_answer_parses(vertex_client: genai.Client) -> None:
    """response_schema (OpenAPI dialect) gets JSON that the SDK parses into the model."""
    response = vertex_client.models.generate_content(
        model=MODEL,
        contents="Who wrote Pride and Prejudice?",
        config=types.GenerateContentConfig(
            response_mime_type="application/json", response_schema=Book
        ),
    )
    assert isinstance(response.parsed, Book)


def test_response_json_schema_answer_conforms(vertex_client: genai.Client) -> None:
    """response_json_schema (JSON Schema) gets JSON valid under that schema."""
    schema = {
        "type": "object",
        "properties": {
            "answer": {"type": "string"},
            "sources": {"type": "array", "items": {"type": "string", "format": "uri"}},
        },
        "required": ["answer", "sources"],
    }
    response = vertex_client.models.generate_content(
        model=MODEL,
        contents="What is the capital of France?",
        config=types.GenerateContentConfig(
            response_mime_type="application/json", response_json_schema=schema
        ),
    )
    jsonschema.validate(json.loads(response.text or ""), schema)


def test_reshape_answers_the_question_already_answered(vertex_client: genai.Client) -> None:
    """A JSON follow-up to the model's own answer restates that answer, not the follow-up."""
    question = "What is the tallest mountain in Alberta?"
    first = vertex_client.models.generate_content(model=MODEL, contents=question)
    reshape = vertex_client.models.generate_content(
        model=MODEL,
        contents=[
            types.Content(role="user", parts=[types.Part(text=question)]),
            types.Content(role="model", parts=[types.Part(text=first.text or "")]),
            types.Content(role="user", parts=[types.Part(text="Rewrite that as JSON.")]),
        ],
        config=types.GenerateContentConfig(
            response_mime_type="application/json",
            response_json_schema={
                "type": "object",
                "properties": {"summary": {"type": "string"}},
                "required": ["summary"],
            },
        ),
    )
    summary = json.loads(reshape.text or "")["summary"]
    assert summary in (first.text or "")
    assert "Rewrite" not in summary


def test_search_and_json_together_ground_the_json(vertex_client: genai.Client) -> None:
    """Tools plus a JSON mime type are allowed; supports point into the JSON text, in bytes."""
    response = ask(
        vertex_client,
        "Who wrote Pride and Prejudice?",
        response_mime_type="application/json",
        response_schema=Book,
    )
    assert isinstance(response.parsed, Book)
    data = (response.text or "").encode()
    supports = metadata(response).grounding_supports or []
    assert supports
    for support in supports:
        assert support.segment is not None
        start, end = support.segment.start_index or 0, support.segment.end_index or 0
        assert data[start:end].decode() == support.segment.text


def test_missing_contents_is_invalid_argument(emulator: Emulator) -> None:
    """A body without contents gets Google's 400 INVALID_ARGUMENT error body."""
    with pytest.raises(urllib.error.HTTPError) as caught:
        raw_generate(emulator, {"tools": [{"googleSearch": {}}]})
    assert caught.value.code == 400
    error = json.loads(caught.value.read())["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["code"] == 400


@pytest.mark.asyncio
@GENAI_AIOHTTP_WARNING
async def test_async_client_is_grounded(vertex_client: genai.Client) -> None:
    """client.aio reaches the same endpoint and gets a grounded answer."""
    response = await vertex_client.aio.models.generate_content(
        model=MODEL, contents=ZUGSPITZE, config=types.GenerateContentConfig(tools=SEARCH_TOOL)
    )
    assert metadata(response).grounding_chunks
    await vertex_client.aio.aclose()
