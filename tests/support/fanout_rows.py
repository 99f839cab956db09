"""Hand-made fan-out rows of a batch output, as far as the overlap report reads them."""

from __future__ import annotations

from typing import Any

__all__ = ["agreement_row"]


def agreement_row(
    order: list[str], agreement: list[dict[str, Any]], **aggregate: Any
) -> dict[str, Any]:
    """An ok fan-out row where every provider of ``order`` answered, with these pair figures."""
    return {
        "ok": True,
        "fanout": {
            "providers": {name: {"ok": True, "response": {}} for name in order},
            "aggregate": {"providers": order, "agreement": agreement, **aggregate},
        },
    }
