"""Provider replies built in memory, per vendor of the registry, for suites that craft bodies.

``reply_body(vendor, text, sources=...)`` is the body a vendor's API would send for an answer
``text`` citing ``sources`` (URLs). A vendor of ``adapters.registry.PROVIDERS`` without a
builder here is skipped, with the reason, by :func:`require_builder`: a provider added to the
registry gets these suites by adding its builder (the body its emulator module serves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from adapters.registry import PROVIDERS

__all__ = [
    "BUILDERS",
    "anthropic_reply",
    "chat_reply",
    "openai_reply",
    "perplexity_reply",
    "reply_body",
    "require_builder",
    "vertex_reply",
]

ANSWER = "Paris is the capital of France. "


def openai_reply(text: str = ANSWER, sources: Sequence[str] = ()) -> dict[str, Any]:
    """An OpenAI Responses API body: one web search, one message citing its first source."""
    urls = list(sources) or ["https://example.com/paris"]
    search = {
        "type": "search",
        "query": "capital of France",
        "sources": [{"type": "url", "url": url} for url in urls],
    }
    annotations = [
        {"type": "url_citation", "url": url, "title": "Paris", "start_index": 0, "end_index": 5}
        for url in urls
    ]
    return {
        "id": "resp_built",
        "object": "response",
        "model": "gpt-5",
        "status": "completed",
        "output": [
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": search},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": annotations}],
            },
        ],
    }


def vertex_reply(text: str = ANSWER, sources: Sequence[str] = ()) -> dict[str, Any]:
    """A Vertex AI ``generateContent`` body: grounding chunks for each source, all supported."""
    urls = list(sources) or ["https://example.com/paris"]
    chunks = [{"web": {"uri": url, "title": "Paris"}} for url in urls]
    support = {
        "segment": {"startIndex": 0, "endIndex": 5},
        "groundingChunkIndices": list(range(len(urls))),
    }
    candidate = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP",
        "groundingMetadata": {
            "webSearchQueries": ["capital of France"],
            "groundingChunks": chunks,
            "groundingSupports": [support],
        },
    }
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


def perplexity_reply(text: str = ANSWER, sources: Sequence[str] = ()) -> dict[str, Any]:
    """A Perplexity Sonar body: the sources as search results and citations (the text is kept
    as given, so a JSON answer stays JSON: no [n] markers are added)."""
    urls = list(sources) or ["https://example.com/paris"]
    return {
        "id": "built",
        "model": "sonar",
        "object": "chat.completion",
        "citations": urls,
        "search_results": [{"title": "Paris", "url": url, "snippet": "Paris."} for url in urls],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14},
    }


def chat_reply(text: str = ANSWER, sources: Sequence[str] = ()) -> dict[str, Any]:
    """A Chat Completions body (OpenRouter's web plugin): one annotation per source."""
    urls = list(sources) or ["https://example.com/paris"]
    annotations = [
        {
            "type": "url_citation",
            "url_citation": {"url": url, "title": "Paris", "start_index": 0, "end_index": 5},
        }
        for url in urls
    ]
    message = {"role": "assistant", "content": text, "annotations": annotations}
    return {
        "id": "gen-built",
        "object": "chat.completion",
        "model": "openai/gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


def anthropic_reply(text: str = ANSWER, sources: Sequence[str] = ()) -> dict[str, Any]:
    """An Anthropic Messages body: one web search finding the sources, one text block citing
    each of them."""
    urls = list(sources) or ["https://example.com/paris"]
    results = [
        {
            "type": "web_search_result",
            "url": url,
            "title": "Paris",
            "encrypted_content": "EqcB",
            "page_age": None,
        }
        for url in urls
    ]
    citations = [
        {
            "type": "web_search_result_location",
            "url": url,
            "title": "Paris",
            "cited_text": "Paris.",
            "encrypted_index": "Eo8B",
        }
        for url in urls
    ]
    search_input = {"query": "capital of France"}
    return {
        "id": "msg_built",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": search_input,
            },
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results},
            {"type": "text", "text": text, "citations": citations},
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 5, "output_tokens": 9},
    }


BUILDERS: dict[str, Callable[..., dict[str, Any]]] = {
    "openai": openai_reply,
    "vertex": vertex_reply,
    "gemini": vertex_reply,  # the Gemini API sends Vertex AI's body
    "perplexity": perplexity_reply,
    "openrouter": chat_reply,
    "anthropic": anthropic_reply,
}


def require_builder(vendor: str) -> Callable[..., dict[str, Any]]:
    """The vendor's reply builder; skips the test (saying what is missing) when there is none."""
    assert vendor in PROVIDERS
    builder = BUILDERS.get(vendor)
    if builder is None:
        pytest.skip(
            f"{vendor}: no reply builder in tests/support/replies.py; the provider package "
            "must come with the body shape of its API (what its emulator module serves)"
        )
    return builder


def reply_body(vendor: str, text: str = ANSWER, sources: Sequence[str] = ()) -> dict[str, Any]:
    """The body ``vendor``'s API sends for ``text`` citing ``sources``."""
    return require_builder(vendor)(text, sources)
