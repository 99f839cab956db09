"""A 20 MB provider reply or a 1 MB title blows up neither memory, nor the response, nor logs.

Replies are built in memory and served by the emulator to the real SDKs. Peak memory is
measured with tracemalloc while one reply is routed and bounded relative to the reply's size
(the SDK holds the body, its text and its parsed form at once, so a few times the input is
expected); what stays allocated once the response is dropped must be small, whatever the reply
held; citations, raw and warnings are bounded; log lines stay short.
"""

from __future__ import annotations

import gc
import io
import json
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from router.citations.raw import RAW_TEXT_LIMIT
from router.emulator import Emulator
from router.logging import MAX_LOG_FIELD_CHARS, configure_logging
from router.router import UnifiedLLMAdapter
from support.emulated import emulator_settings, grounded_request

MB = 1_000_000
ANSWER = "Paris is the capital of France. "


def openai_reply(text: str = ANSWER, sources: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    search = {"type": "search", "query": "capital of France", "sources": sources or []}
    annotation = {
        "type": "url_citation",
        "url": "https://example.com/paris",
        "title": "Paris",
        "start_index": 0,
        "end_index": 5,
    }
    return {
        "id": "resp_large",
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
                "content": [{"type": "output_text", "text": text, "annotations": [annotation]}],
            },
        ],
    }


def vertex_reply(text: str = ANSWER, chunks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    chunks = chunks or [{"web": {"uri": "https://example.com/paris", "title": "Paris"}}]
    support = {"segment": {"startIndex": 0, "endIndex": 5}, "groundingChunkIndices": [0]}
    grounding = {
        "webSearchQueries": ["capital of France"],
        "groundingChunks": chunks,
        "groundingSupports": [support],
    }
    candidate = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP",
        "groundingMetadata": grounding,
    }
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


def long_text(size: int) -> str:
    return (ANSWER * (size // len(ANSWER) + 1))[:size]


def many_sources(vendor: str, size: int) -> dict[str, Any]:
    count = size // 500
    if vendor == "openai":
        sources = [
            {"type": "url", "url": f"https://site{i}.example.com/page", "title": "T" * 400}
            for i in range(count)
        ]
        return openai_reply(sources=sources)
    chunks = [
        {"web": {"uri": f"https://site{i}.example.com/page", "title": "T" * 400}}
        for i in range(count)
    ]
    return vertex_reply(chunks=chunks)


REPLIES: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = {
    "openai-20MB-answer": lambda: ("openai", openai_reply(long_text(20 * MB))),
    "vertex-20MB-answer": lambda: ("vertex", vertex_reply(long_text(20 * MB))),
    "openai-2MB-of-sources": lambda: ("openai", many_sources("openai", 2 * MB)),
    "vertex-2MB-of-chunks": lambda: ("vertex", many_sources("vertex", 2 * MB)),
}
SLOW_REPLIES: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = {
    "openai-20MB-of-sources": lambda: ("openai", many_sources("openai", 20 * MB)),
    "vertex-20MB-of-chunks": lambda: ("vertex", many_sources("vertex", 20 * MB)),
}
# Measured: about 3x for one huge text (bytes, text and parsed string held at once); about 7x
# at 20 MB and 11x at 2 MB for thousands of citations (SDK objects, the citation dicts with their
# raw copies, the response's validated copy, and the caches filling up: a fixed share).
PEAK_FACTOR = {"answer": 5.0, "sources": 15.0, "chunks": 15.0}


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    with UnifiedLLMAdapter(emulator_settings(emulator, max_attempts=1, timeout_s=120)) as built:
        for vendor in ("openai", "vertex"):  # clients and imports exist before any measurement
            emulator.enqueue_reply(vendor, json.dumps(many_sources(vendor, 10_000)).encode())
            built.route(grounded_request(vendor, "warm-up"))
        yield built


def peak_while_routing(
    emulator: Emulator, router: UnifiedLLMAdapter, vendor: str, body: bytes
) -> tuple[int, int]:
    """(peak bytes allocated while routing, bytes still allocated once the response is gone)."""
    emulator.enqueue_reply(vendor, body)
    gc.collect()
    tracemalloc.start()
    try:
        response = router.route(grounded_request(vendor, "large"))
        _, peak = tracemalloc.get_traced_memory()
        del response
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, kept


def _check_peak(
    name: str,
    build: Callable[[], tuple[str, dict[str, Any]]],
    emulator: Emulator,
    router: UnifiedLLMAdapter,
) -> None:
    vendor, reply = build()
    body = json.dumps(reply).encode()
    del reply
    peak, _ = peak_while_routing(emulator, router, vendor, body)
    factor = PEAK_FACTOR[name.rsplit("-", 1)[1]]
    assert peak < factor * len(body), f"peak {peak / MB:.1f} MB for {len(body) / MB:.1f} MB"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", list(REPLIES))
def test_peak_memory_is_a_small_multiple_of_the_reply(
    name: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """Routing a large reply peaks at a few times its size and keeps nothing of it."""
    _check_peak(name, REPLIES[name], emulator, router)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", list(SLOW_REPLIES))
def test_peak_memory_of_twenty_megabytes_of_citations(
    name: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """The long run (--runslow): 20 MB of sources or chunks, tens of thousands of citations."""
    _check_peak(name, SLOW_REPLIES[name], emulator, router)


def huge_values(vendor: str, count: int, *, url_chars: int = 100_000) -> dict[str, Any]:
    """A reply whose cited sources carry distinct 1 MB titles and keys, and long URLs."""
    # Distinct per vendor too: a value seen before would already sit in a cache.
    cited = [
        {
            "url": f"https://{vendor}{i}.example.com/{'p' * url_chars}",
            "title": f"{vendor} {i} {'T' * MB}",
            f"extra_{i}_{'k' * MB}": True,
        }
        for i in range(count)
    ]
    if vendor == "openai":
        reply = openai_reply()
        annotations = reply["output"][1]["content"][0]["annotations"]
        for source in cited:
            annotations.append({"type": "url_citation", "start_index": 0, "end_index": 5, **source})
        return reply
    chunks = [{"web": {"uri": source.pop("url"), **source}} for source in cited]
    reply = vertex_reply(chunks=chunks)
    supports = reply["candidates"][0]["groundingMetadata"]["groundingSupports"]
    supports[0]["groundingChunkIndices"] = list(range(count))
    return reply


@pytest.mark.timeout(120)
@pytest.mark.parametrize("vendor", ["openai", "vertex"])
def test_huge_titles_urls_and_keys_leave_nothing_behind(
    vendor: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """Ten distinct 1 MB titles (and long URLs and keys) stay in no cache after the route."""
    body = json.dumps(huge_values(vendor, 10)).encode()
    _, kept = peak_while_routing(emulator, router, vendor, body)
    assert kept < MB, f"{kept / MB:.1f} MB of a {len(body) / MB:.1f} MB reply kept"


@pytest.mark.parametrize("vendor", ["openai", "vertex"])
def test_huge_title_is_bounded_in_the_response(
    vendor: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """A 1 MB title becomes a 500-character title and a cut raw; the response stays small."""
    emulator.enqueue_reply(vendor, json.dumps(huge_values(vendor, 1, url_chars=10)).encode())
    response = router.route(grounded_request(vendor, "huge title"))
    titled = [c for c in response.citations if c["title"] and c["title"].startswith(vendor)]
    assert titled
    for citation in titled:
        assert citation["title"] is not None
        assert len(citation["title"]) <= 500
        assert len(json.dumps(citation["raw"])) < 3 * RAW_TEXT_LIMIT
    assert len(response.model_dump_json()) < 50_000


@pytest.mark.parametrize("vendor", ["openai", "vertex"])
def test_log_lines_stay_short(
    vendor: str, emulator: Emulator, make_settings: Callable[..., Any]
) -> None:
    """With forensic events on and the CLI's logging, a huge reply logs only short lines."""
    reply = huge_values(vendor, 3)
    if vendor == "vertex":  # searched, nothing citable, a huge key: the [CITATIONS] warning
        reply["candidates"][0]["groundingMetadata"] = {
            "webSearchQueries": ["q"],
            f"odd_{'k' * MB}": {},
        }
    else:
        reply["output"][1]["content"][0]["annotations"] = []
        reply["output"][0]["action"] = {"type": "search", "query": "q" * MB}
    emulator.enqueue_reply(vendor, json.dumps(reply).encode())
    stream = io.StringIO()
    configure_logging(json_lines=True, stream=stream, debug_grounding=True)
    settings = emulator_settings(emulator, max_attempts=1, debug_grounding=True)
    with UnifiedLLMAdapter(settings) as router:
        response = router.route(grounded_request(vendor, "logs"))
    lines = stream.getvalue().splitlines()
    assert lines
    assert max(len(line) for line in lines) < 4 * MAX_LOG_FIELD_CHARS
    for warning in response.metadata["warnings"]:
        assert len(warning) <= MAX_LOG_FIELD_CHARS
