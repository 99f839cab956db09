"""PerplexityAdapter: Sonar chat completions through the ``openai`` SDK.

The adapter builds the call (:mod:`adapters.perplexity.request`), sends it once through the
``openai`` clients shared by every OpenAI-compatible provider
(:mod:`adapters.openai_compatible.adapter`, :mod:`adapters.openai_compatible.calls`: SDK retries
off, errors translated under Perplexity's names), and maps the reply with the pure mapper of
:mod:`adapters.perplexity.reply`. Streams go the same way and are read by
:mod:`adapters.perplexity.stream`; their answer is complete as streamed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adapters.base import AdapterResult, StreamingAdapter
from adapters.openai_compatible.adapter import OpenAICompatibleAdapter
from adapters.openai_compatible.calls import ClientKey, client_key
from adapters.perplexity.errors import PERPLEXITY
from adapters.perplexity.reply import map_perplexity_reply
from adapters.perplexity.request import CHAT_PATH, build_chat_params
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = ["DEFAULT_BASE_URL", "PERPLEXITY", "PerplexityAdapter"]

DEFAULT_BASE_URL = "https://api.perplexity.ai"


class PerplexityAdapter(OpenAICompatibleAdapter):
    """Sends router requests to Perplexity's Sonar API; one instance serves every call."""

    vendor: Vendor = "perplexity"
    service = PERPLEXITY
    path = CHAT_PATH
    default_base_url = DEFAULT_BASE_URL

    def _params(self, request: LLMRequest, settings: RouterSettings) -> dict[str, Any]:
        del settings
        return build_chat_params(request)

    def _client_key(self, settings: RouterSettings) -> ClientKey:
        return client_key(PERPLEXITY, settings.perplexity_api_key, settings.perplexity_base_url)

    def _map(self, body: object, request: LLMRequest) -> AdapterResult:
        return map_perplexity_reply(body, request)


if TYPE_CHECKING:  # mypy proves that the class satisfies the router's adapter protocols
    _satisfies_protocol: StreamingAdapter = PerplexityAdapter()
