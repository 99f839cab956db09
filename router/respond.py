"""From an adapter's result to the ``LLMResponse`` the caller gets (route, stream, extract).

``metadata`` repeats ``citations``, ``grounded_effective``, ``two_step``, ``tool_call_count``
and the ``warnings`` (DESIGN.md section 2), and echoes the request's own metadata as
``request_metadata``. Provider text may hold lone surrogates (JSON escapes): they are scrubbed
so the response can always be written out.

The response is built with ``model_construct``, not validated again: every value comes from the
router's own typed code (the adapter's ``AdapterResult``, the request, the cost), and validating
the citations once more copied each citation dict on every call for nothing. The tests hold
that every assembled response validates (``LLMResponse.model_validate`` of its dump gives it
back), for every recorded reply and every vendor's emulated call.
"""

from __future__ import annotations

from typing import Any

from adapters.base import AdapterResult
from router.text.lone_surrogates import scrub, scrub_citations, scrub_value
from router.types import Cost, LLMRequest, LLMResponse

__all__ = ["assemble_response"]


def assemble_response(
    request: LLMRequest,
    result: AdapterResult,
    *,
    attempts: int,
    latency_ms: float,
    cost: Cost | None = None,
) -> LLMResponse:
    """The response of ``request`` from the adapter's result (lone surrogates scrubbed)."""
    # Provider text may hold lone surrogates (JSON escapes); the response must stay writable.
    citations = scrub_citations(result.citations)
    metadata: dict[str, Any] = scrub_value(dict(result.metadata))
    metadata.update(
        citations=citations,
        grounded_effective=result.grounded_effective,
        two_step=bool(result.metadata.get("two_step", False)),
        tool_call_count=result.tool_call_count,
        warnings=[scrub(warning) for warning in result.warnings],
    )
    if request.metadata:
        metadata["request_metadata"] = request.metadata
    return LLMResponse.model_construct(
        request_id=request.request_id,
        vendor=request.vendor,
        model=request.model,
        model_version=scrub(result.model_version) if result.model_version else None,
        content=scrub(result.content),
        parsed=scrub_value(result.parsed),
        grounded_effective=result.grounded_effective,
        tool_call_count=result.tool_call_count,
        web_search_queries=[scrub(query) for query in result.web_search_queries],
        citations=list(citations),  # a list of its own; the dicts are those of metadata
        search_entry_point=(
            scrub(result.search_entry_point) if result.search_entry_point else None
        ),
        usage=result.usage.model_copy(update={"cost": cost}),
        latency_ms=latency_ms,
        attempts=attempts,
        metadata=metadata,
    )
