"""From a request to the bytes of a synthesised answer: JSON body or SSE frames."""

from __future__ import annotations

import secrets

from router.emulator.apis import ProviderApi
from router.emulator.catalogue import answer_for
from router.emulator.fault_kinds import FaultKind
from router.emulator.ids import digest
from router.emulator.reply import Reply
from router.emulator.wire import Ask

__all__ = ["synthesise"]


def synthesise(
    api: ProviderApi, ask: Ask, *, sse: bool, fault: FaultKind | None, seed: str | None = None
) -> list[bytes] | Reply:
    """The answer to ``ask`` on ``api`` as stream frames, or as one complete reply.

    ``sse`` is Google's ``alt=sse``; ``fault`` is a content fault shaping the answer; ``seed``
    makes the reply's ids a function of the seed and the request (a stream and a plain call
    of the same request then carry the same ids).
    """
    answer = answer_for(ask.question, ask.country)
    serial = secrets.token_hex(12) if seed is None else _seeded_serial(seed, ask)
    return api.synthesise(ask, answer, fault, serial, sse)


def _seeded_serial(seed: str, ask: Ask) -> str:
    return digest(seed, ask.api, ask.model, ask.prompt, ask.question)[:12].hex()
