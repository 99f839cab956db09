"""The kinds of fault a request can be given, and the header that says when to retry.

Apart from :mod:`router.emulator.faults` so the API modules, which shape content faults and
error replies, need nothing that knows the list of APIs.
"""

from __future__ import annotations

import math
from typing import Literal, get_args

__all__ = ["CONTENT_FAULTS", "FAULT_KINDS", "FaultKind", "retry_after_header"]

FaultKind = Literal[
    "429",
    "500",
    "503",
    "529",
    "400",
    "401",
    "delay",
    "hang",
    "drop",
    "truncate",
    "non_json",
    "html",
    "no_search",
    "no_citations",
    "empty_grounding",
    "trickle_headers",
    "trickle_body",
    "trickle_chunks",
    "continue_flood",
]

FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)
"""Every fault kind, in a stable order (the fault-matrix tests iterate over it)."""

CONTENT_FAULTS: frozenset[FaultKind] = frozenset({"no_search", "no_citations", "empty_grounding"})
"""Faults that change what a successful answer holds rather than how the reply is delivered."""


def retry_after_header(seconds: float) -> str:
    """Retry-After is whole seconds (RFC 9110 section 10.2.3), rounded up."""
    return str(max(0, math.ceil(seconds)))
