"""What the adapters' wire suites share about the emulator's fault kinds."""

from __future__ import annotations

from collections.abc import Iterable

from router.emulator import FAULT_KINDS

# Kinds that deliver a whole reply slowly: within the read timeout the call is answered (the
# deadline that ends a slower one is the router's, tests/test_deadline.py).
SLOW_KINDS = ("trickle_headers", "trickle_body", "trickle_chunks", "continue_flood")
# A delay only postpones an answer; no adapter suite tables it.
UNTABLED_KINDS = frozenset({"delay"})


def fault_table_gaps(*tables: Iterable[str]) -> set[str]:
    """Kinds the emulator knows that no table names, and kinds a table names that it does not."""
    named = set(UNTABLED_KINDS).union(*tables)
    return named ^ set(FAULT_KINDS)


def faulted_prompt(kind: str) -> str:
    """A question whose call meets fault ``kind``."""
    return f"Weather in Rome? [[emulator:fault={kind}]]"


def fault_timeout_s(kind: str) -> float:
    """``timeout_s`` for a fault call: short for a hang, which only the per-call timeout ends;
    long for the others, which answer at once (a loaded machine must not turn their answer into
    a timeout)."""
    return 0.5 if kind == "hang" else 10.0
