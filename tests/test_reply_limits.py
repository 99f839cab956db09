"""A reply is bounded once decompressed, and in the citations and forensic events it yields.

A gzip bomb (a few hundred KB that unpack to 512 MB) is cut at ``max_reply_bytes`` on every
path (each vendor of the registry, sync and async) and reported as
``ResponseParseError(reason="reply_too_large")``, while memory stays a small multiple of the
limit; an ordinary compressed reply still answers. A reply naming thousands of sources gives at
most ``max_citations`` citations, with a warning saying so, and at most ``max_debug_events``
forensic events.
"""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router.emulator import Emulator
from router.errors import ResponseParseError
from router.router import UnifiedLLMAdapter
from router.types import LLMResponse
from support.emulated import emulator_settings
from support.logs import capture_logs
from support.replies import reply_body

VENDORS = list(PROVIDERS)
CALLS = ("route", "aroute")
MB = 1024 * 1024
LIMIT = 4 * MB
BOMB_BYTES = 128 * MB  # 32x the limit; the 512 MB bomb behaves the same


def gzipped(chunks: Iterator[bytes]) -> bytes:
    # Z_RLE packs runs about as tightly as level 9 and many times faster.
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16, 9, zlib.Z_RLE)
    return b"".join(packer.compress(chunk) for chunk in chunks) + packer.flush()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    """128 MB of a JSON string's inside, gzipped (about 128 KB)."""
    block = b"A" * MB
    return gzipped(iter([b'{"id": "', *([block] * (BOMB_BYTES // MB)), b'"}']))


def raw_reply(body: bytes, encoding: str | None) -> bytes:
    fields = ["HTTP/1.1 200 OK", "Content-Type: application/json", f"Content-Length: {len(body)}"]
    if encoding:
        fields.append(f"Content-Encoding: {encoding}")
    return ("\r\n".join([*fields, "Connection: close", "", ""])).encode() + body


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    settings = emulator_settings(emulator, max_attempts=1, max_reply_bytes=LIMIT)
    with UnifiedLLMAdapter(settings) as built:
        for vendor in VENDORS:  # imports and clients exist before any memory is measured
            for call in CALLS:
                ask(built, vendor, call)
        yield built


def ask(router: UnifiedLLMAdapter, vendor: str, call: str, **extra: Any) -> LLMResponse:
    request = {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,
        "messages": [{"role": "user", "content": "Capital of France?"}],
        "grounded": True,
        **extra,
    }
    if call == "route":
        return router.route(request)
    return asyncio.run(router.aroute(request))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("vendor", VENDORS)
def test_gzip_bomb_is_cut_at_the_limit(
    vendor: str, call: str, bomb: bytes, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """128 MB unpacked from 128 KB: refused as reply_too_large, memory near the 4 MB limit."""
    emulator.enqueue_raw(vendor, raw_reply(bomb, "gzip"))  # type: ignore[arg-type]
    gc.collect()
    tracemalloc.start()
    try:
        with pytest.raises(ResponseParseError) as caught:
            ask(router, vendor, call)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.reason == "reply_too_large"
    assert "GROUNDING_ROUTER_MAX_REPLY_BYTES" in caught.value.message
    assert peak < 16 * LIMIT, f"peak {peak / MB:.0f} MB"


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("vendor", VENDORS)
def test_uncompressed_reply_past_the_limit_is_refused(
    vendor: str, call: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """A plain 5 MB reply is past a 4 MB limit just the same."""
    body = json.dumps(reply_body(vendor, "x" * (5 * MB))).encode()
    emulator.enqueue_raw(vendor, raw_reply(body, None))  # type: ignore[arg-type]
    with pytest.raises(ResponseParseError) as caught:
        ask(router, vendor, call)
    assert caught.value.reason == "reply_too_large"


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("vendor", VENDORS)
def test_compressed_reply_within_the_limit_answers(
    vendor: str, call: str, encoding: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """A gzip or deflate reply under the limit is decoded and answered as usual."""
    body = json.dumps(reply_body(vendor, "Paris is the capital of France. " * 1000)).encode()
    wbits = zlib.MAX_WBITS | 16 if encoding == "gzip" else zlib.MAX_WBITS
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    packed = packer.compress(body) + packer.flush()
    emulator.enqueue_raw(vendor, raw_reply(packed, encoding))  # type: ignore[arg-type]
    response = ask(router, vendor, call)
    assert response.content.startswith("Paris is the capital")
    assert response.citations


@pytest.mark.parametrize("vendor", VENDORS)
def test_citations_past_the_limit_are_cut_with_a_warning(vendor: str, emulator: Emulator) -> None:
    """A reply naming 5,000 sources gives max_citations (100) citations and says it cut."""
    sources = [f"https://site{n}.example.com/page" for n in range(5_000)]
    emulator.enqueue_reply(vendor, json.dumps(reply_body(vendor, "Paris.", sources)).encode())  # type: ignore[arg-type]
    settings = emulator_settings(emulator, max_attempts=1, max_citations=100)
    with UnifiedLLMAdapter(settings) as router:
        response = ask(router, vendor, "route")
    assert len(response.citations) == 100
    warnings = response.metadata["warnings"]
    assert any("GROUNDING_ROUTER_MAX_CITATIONS=100" in warning for warning in warnings)


@pytest.mark.parametrize("vendor", VENDORS)
def test_forensic_events_past_the_limit_are_cut(vendor: str, emulator: Emulator) -> None:
    """With DEBUG_GROUNDING, 2,000 sources log at most max_debug_events (50) debug events."""
    sources = [f"https://site{n}.example.com/page" for n in range(2_000)]
    emulator.enqueue_reply(vendor, json.dumps(reply_body(vendor, "Paris.", sources)).encode())  # type: ignore[arg-type]
    settings = emulator_settings(
        emulator, max_attempts=1, debug_grounding=True, max_debug_events=50
    )
    with UnifiedLLMAdapter(settings) as router, capture_logs() as events:
        ask(router, vendor, "route")
    debug = [event for event in events if event["log_level"] == "debug"]
    assert 0 < len(debug) <= 50 + 1  # the route_completed summary is one more
    assert any(event["event"] == "forensic_events_cut" for event in events)
