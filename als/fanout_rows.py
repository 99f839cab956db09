"""Fan-out rows of a batch output (one question, several providers) as the ALS report reads them.

A fan-out row (``grounding-router batch`` lines with ``"vendors"``) holds each provider's
outcome under ``fanout.providers``. The report counts each of them as a row of its own vendor,
with the model that vendor was asked for (``request.models``) and the row's requester country,
so a provider's answers in fan-out rows count in its TLD and domain statistics like any other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["fanout_providers", "provider_rows"]


def fanout_providers(row: object) -> Mapping[str, Any] | None:
    """The ``fanout.providers`` of a fan-out row, or None for any other row."""
    if not isinstance(row, Mapping):
        return None
    fanout = row.get("fanout")
    providers = fanout.get("providers") if isinstance(fanout, Mapping) else None
    return providers if isinstance(providers, Mapping) else None


def provider_rows(row: object) -> Iterator[object]:
    """The row itself, or for a fan-out row one row per provider it asked (see the module)."""
    providers = fanout_providers(row)
    if providers is None:
        yield row
        return
    assert isinstance(row, Mapping)  # fanout_providers found a mapping
    request = row.get("request")
    request = request if isinstance(request, Mapping) else {}
    models = request.get("models")
    models = models if isinstance(models, Mapping) else {}
    for vendor, part in providers.items():
        if not isinstance(part, Mapping):
            yield None  # not a provider's outcome: an unreadable part
            continue
        asked = {
            "vendor": vendor,
            "model": models.get(vendor),
            "user_location": request.get("user_location"),
        }
        if part.get("ok") is True:
            yield {"ok": True, "request": asked, "response": part.get("response")}
        else:
            yield {"ok": False, "request": asked, "error": part.get("error")}
