"""Deterministic randomness: the same request text always yields the same answer and ids."""

from __future__ import annotations

import base64
import hashlib
import random

__all__ = [
    "digest",
    "openai_id",
    "redirect_token",
    "rng_for",
    "vertex_response_id",
]


def digest(*parts: str) -> bytes:
    """A 32-byte digest of the parts (joined unambiguously)."""
    return hashlib.sha256("\0".join(parts).encode()).digest()


def rng_for(*parts: str) -> random.Random:
    """A random generator seeded from the parts; ``random.Random`` is stable across runs."""
    return random.Random(int.from_bytes(digest(*parts)[:8], "big"))


def openai_id(prefix: str, serial: str, *parts: str) -> str:
    """An OpenAI-style id: ``resp_``, ``ws_``, ``msg_``... then 50 hex digits.

    Ids of one response share their first 24 digits (the ``serial``), as recorded ones do.
    """
    own = hashlib.blake2b("\0".join((serial, *parts)).encode(), digest_size=13).hexdigest()
    return f"{prefix}_{serial[:24]}{own}"


def vertex_response_id(*parts: str) -> str:
    """A Vertex ``responseId``: 23 URL-safe base64 characters."""
    return base64.urlsafe_b64encode(digest(*parts)[:18]).decode()[:23]


def redirect_token(*parts: str) -> str:
    """A grounding-api-redirect token: ``AUZIYQ`` then URL-safe base64 of 110 to 230 bytes.

    The byte length varies, so the ``=`` padding varies as it does in real tokens.
    """
    seed = digest(*parts)
    size = 110 + seed[0] % 121
    body = hashlib.shake_256(seed).digest(size)
    return "AUZIYQ" + base64.urlsafe_b64encode(body).decode()
