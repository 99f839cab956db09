"""Deterministic randomness: the same request text always yields the same answer and ids."""

from __future__ import annotations

import base64
import hashlib
import random

__all__ = [
    "digest",
    "obfuscation",
    "openai_id",
    "redirect_token",
    "rng_for",
    "vertex_response_id",
]

_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def digest(*parts: str) -> bytes:
    """A 32-byte digest of the parts (joined unambiguously)."""
    return hashlib.sha256("\0".join(parts).encode()).digest()


def rng_for(*parts: str) -> random.Random:
    """A random generator seeded from the parts; ``random.Random`` is stable across runs."""
    return random.Random(int.from_bytes(digest(*parts)[:8], "big"))


def openai_id(prefix: str, *parts: str) -> str:
    """An OpenAI-style object id such as ``resp_0a4b...`` (50 hex digits, as recorded)."""
    return f"{prefix}_{hashlib.shake_256(digest(*parts)).hexdigest(25)}"


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


def obfuscation(*parts: str) -> str:
    """The padding string OpenAI puts on each text delta (1 to 15 characters)."""
    rng = rng_for("obfuscation", *parts)
    return "".join(rng.choice(_ALNUM) for _ in range(rng.randint(1, 15)))
