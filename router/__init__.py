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
    from router.router import (
        Router,
        UnifiedLLMAdapter,
        aroute,
        astream,
        route,
        stream,
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
        Citation,
        Cost,
        LLMRequest,
        LLMResponse,
        Message,
        Span,
        Usage,
        UserLocation,
    )

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Aggregate": "router.aggregate",
    "Citation": "router.types",
    "CitationDelta": "router.streaming.events",
    "Completed": "router.streaming.events",
    "SearchStarted": "router.streaming.events",
    "StreamAccumulator": "router.streaming",
    "StreamEvent": "router.streaming.events",
    "TextDelta": "router.streaming.events",
    "astream": "router.router",
    "extract": "router.extraction",
    "stream": "router.router",
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
    "Router": "router.router",
    "RouterError": "router.errors",
    "RouterSettings": "router.settings",
    "Span": "router.types",
    "UnifiedLLMAdapter": "router.router",
    "Usage": "router.types",
    "UserLocation": "router.types",
    "aggregate": "router.aggregate",
    "aroute": "router.router",
    "aroute_many": "router.fanout",
    "route": "router.router",
    "route_many": "router.fanout",
}

__all__ = [
    "Aggregate",
    "Citation",
    "CitationDelta",
    "Completed",
    "ConfigurationError",
    "Cost",
    "FanoutError",
    "FanoutResult",
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
    "route",
    "route_many",
    "stream",
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
