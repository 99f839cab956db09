"""From a request to the bytes of a synthesised answer: JSON body or SSE frames."""

from __future__ import annotations

import secrets
import time
from datetime import UTC, datetime

from router.emulator.apis import (
    anthropic_messages,
    gemini,
    openai_responses,
    openrouter,
    perplexity,
    vertex,
)
from router.emulator.catalogue import answer_for
from router.emulator.faults import FaultKind
from router.emulator.ids import digest
from router.emulator.reply import Reply, google_json, openai_json
from router.emulator.sse import anthropic_event, data_frame, openai_event, vertex_frame
from router.emulator.wire import Ask

__all__ = ["synthesise"]


def synthesise(
    ask: Ask, *, sse: bool, fault: FaultKind | None, seed: str | None = None
) -> tuple[list[bytes] | None, Reply | None]:
    """The answer to ``ask`` as stream frames, or as one complete reply.

    ``sse`` is Vertex's ``alt=sse``; ``fault`` is a content fault shaping the answer; ``seed``
    makes the reply's ids a function of the seed and the request (a stream and a plain call
    of the same request then carry the same ids).
    """
    answer = answer_for(ask.question, ask.country)
    serial = secrets.token_hex(12) if seed is None else _seeded_serial(seed, ask)
    if ask.api == "openai":
        body = openai_responses.build_response(
            ask, answer, fault=fault, serial=serial, created_at=int(time.time())
        )
        if ask.stream:
            events = openai_responses.stream_events(body, serial=serial)
            return [openai_event(kind, data) for kind, data in events], None
        return None, Reply(200, openai_json(body).encode())
    if ask.api == "anthropic":
        message = anthropic_messages.build_message(ask, answer, fault=fault, serial=serial)
        if ask.stream:
            frames = [anthropic_event(k, d) for k, d in anthropic_messages.stream_events(message)]
            return frames, None
        return None, Reply(200, openai_json(message).encode())
    if ask.api == "openrouter":
        body = openrouter.build_response(
            ask, answer, fault=fault, serial=serial, created=int(time.time())
        )
        if ask.stream:
            frames = [data_frame(c) for c in openrouter.stream_chunks(body, serial=serial)]
            return [*frames, b"data: [DONE]\n\n"], None
        return None, Reply(200, openai_json(body).encode())
    if ask.api == "perplexity":
        body = perplexity.build_response(
            ask, answer, fault=fault, serial=serial, created=int(time.time())
        )
        if ask.stream:
            return [data_frame(c) for c in perplexity.stream_chunks(body, serial=serial)], None
        return None, Reply(200, openai_json(body).encode())
    if ask.api == "gemini":
        body = gemini.build_response(ask, answer, fault=fault, serial=serial)
    else:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        body = vertex.build_response(ask, answer, fault=fault, serial=serial, create_time=now)
    if not ask.stream:
        return None, Reply(200, google_json(body).encode())
    chunks = (gemini if ask.api == "gemini" else vertex).stream_chunks(body, serial=serial)
    if sse:
        return [vertex_frame(c) for c in chunks], None
    # Without alt=sse the stream is one JSON array, delivered element by element.
    array = "[" + ",\r\n".join(google_json(c) for c in chunks) + "]"
    return None, Reply(200, array.encode())


def _seeded_serial(seed: str, ask: Ask) -> str:
    return digest(seed, ask.api, ask.model, ask.prompt, ask.question)[:12].hex()
