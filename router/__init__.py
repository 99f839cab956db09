"""grounding-router: grounded LLM answers with uniform citations, one ``route()`` for all providers.

``import router`` is cheap and loads no provider SDK: the public names below are imported on
first access (PEP 562), and the adapters only when a call first needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.aggregate import Aggregate, aggregate
    from router.errors import (
        ConfigurationError,
        FanoutError,
        GroundingRequiredFailedError,
        GroundingValidationError,
        ProviderError,
        ProviderRequestError,
        ProviderTransientError,
        RequestValidationError,
        ResponseParseError,
        RouterError,
    )
    from router.extraction import extract
    from router.fanout import FanoutResult, aroute_many, route_many
    from router.grounding import (
        GroundingPolicy,
        GroundingReport,
        lexical,
        provider_confidence,
        verify,
    )
    from router.settings import RouterSettings
    from router.streaming import (
        CitationDelta,
        Completed,
        SearchStarted,
        StreamAccumulator,
        StreamEvent,
        TextDelta,
    )
    from router.types import (
        Attribution,
        Citation,
        Cost,
        LLMRequest,
        LLMResponse,
        Message,
        Span,
        Usage,
        UserLocation,
    )
    from router.unified_llm_adapter import (
        Router,
        UnifiedLLMAdapter,
        aroute,
        astream,
        route,
        stream,
    )

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Aggregate": "router.aggregate",
    "Attribution": "router.types",
    "GroundingPolicy": "router.grounding",
    "GroundingReport": "router.grounding",
    "lexical": "router.grounding",
    "provider_confidence": "router.grounding",
    "verify": "router.grounding",
    "Citation": "router.types",
    "CitationDelta": "router.stream_events",
    "Completed": "router.stream_events",
    "SearchStarted": "router.stream_events",
    "StreamAccumulator": "router.streaming",
    "StreamEvent": "router.stream_events",
    "TextDelta": "router.stream_events",
    "astream": "router.unified_llm_adapter",
    "extract": "router.extraction",
    "stream": "router.unified_llm_adapter",
    "ConfigurationError": "router.errors",
    "Cost": "router.types",
    "FanoutError": "router.errors",
    "FanoutResult": "router.fanout",
    "GroundingRequiredFailedError": "router.errors",
    "GroundingValidationError": "router.errors",
    "LLMRequest": "router.types",
    "LLMResponse": "router.types",
    "Message": "router.types",
    "ProviderError": "router.errors",
    "ProviderRequestError": "router.errors",
    "ProviderTransientError": "router.errors",
    "RequestValidationError": "router.errors",
    "ResponseParseError": "router.errors",
    "Router": "router.unified_llm_adapter",
    "RouterError": "router.errors",
    "RouterSettings": "router.settings",
    "Span": "router.types",
    "UnifiedLLMAdapter": "router.unified_llm_adapter",
    "Usage": "router.types",
    "UserLocation": "router.types",
    "aggregate": "router.aggregate",
    "aroute": "router.unified_llm_adapter",
    "aroute_many": "router.fanout",
    "route": "router.unified_llm_adapter",
    "route_many": "router.fanout",
}

__all__ = [
    "Aggregate",
    "Attribution",
    "Citation",
    "CitationDelta",
    "Completed",
    "ConfigurationError",
    "Cost",
    "FanoutError",
    "FanoutResult",
    "GroundingPolicy",
    "GroundingReport",
    "GroundingRequiredFailedError",
    "GroundingValidationError",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "ProviderError",
    "ProviderRequestError",
    "ProviderTransientError",
    "RequestValidationError",
    "ResponseParseError",
    "Router",
    "RouterError",
    "RouterSettings",
    "SearchStarted",
    "Span",
    "StreamAccumulator",
    "StreamEvent",
    "TextDelta",
    "UnifiedLLMAdapter",
    "Usage",
    "UserLocation",
    "__version__",
    "aggregate",
    "aroute",
    "aroute_many",
    "astream",
    "extract",
    "lexical",
    "provider_confidence",
    "route",
    "route_many",
    "stream",
    "verify",
]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'router' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
