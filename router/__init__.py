"""grounding-router: grounded LLM answers with uniform citations, one ``route()`` for all providers.

``import router`` loads no provider SDK: the adapters are imported when a call first needs them.
"""

from router.errors import (
    ConfigurationError,
    GroundingRequiredFailedError,
    GroundingValidationError,
    ProviderError,
    ProviderRequestError,
    ProviderTransientError,
    RequestValidationError,
    ResponseParseError,
    RouterError,
)
from router.settings import RouterSettings
from router.types import Citation, LLMRequest, LLMResponse, Message, Span, Usage, UserLocation

__version__ = "0.1.0"

__all__ = [
    "Citation",
    "ConfigurationError",
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
    "RouterError",
    "RouterSettings",
    "Span",
    "Usage",
    "UserLocation",
    "__version__",
]
