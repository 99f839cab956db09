"""Provider adapters: OpenAI (Responses API, web search), Vertex AI (google-genai, Google Search).

Adapters are imported lazily by the router, so importing this package loads no SDK.
"""

from adapters.base import Adapter, AdapterResult

__all__ = ["Adapter", "AdapterResult"]
