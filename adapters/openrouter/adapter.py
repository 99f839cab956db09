"""OpenRouterAdapter: OpenRouter's chat completions with the web plugin, through ``openai``.

The call is built by :mod:`adapters.openrouter.request`, sent once through the shared ``openai``
clients (:mod:`adapters.openai_compatible.adapter`, :mod:`adapters.openai_compatible.calls`; errors
under OpenRouter's names) and mapped by :mod:`adapters.openrouter.reply`. Streams are read by
:mod:`adapters.openrouter.stream`; their answer is complete as streamed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adapters.base import AdapterResult, StreamingAdapter
from adapters.openai_compatible.adapter import OpenAICompatibleAdapter
from adapters.openai_compatible.calls import ClientKey, client_key
from adapters.openrouter.errors import OPENROUTER
from adapters.openrouter.reply import map_openrouter_reply
from adapters.openrouter.request import (
    CHAT_PATH,
    DEFAULT_BASE_URL,
    build_openrouter_params,
)
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = ["OpenRouterAdapter"]


class OpenRouterAdapter(OpenAICompatibleAdapter):
    """Sends router requests to OpenRouter with its web plugin; one instance serves every call."""

    vendor: Vendor = "openrouter"
    service = OPENROUTER
    path = CHAT_PATH
    default_base_url = DEFAULT_BASE_URL

    def _params(self, request: LLMRequest, settings: RouterSettings) -> dict[str, Any]:
        del settings
        return build_openrouter_params(request)

    def _client_key(self, settings: RouterSettings) -> ClientKey:
        return client_key(OPENROUTER, settings.openrouter_api_key, settings.openrouter_base_url)

    def _map(self, body: object, request: LLMRequest) -> AdapterResult:
        return map_openrouter_reply(body, request)


if TYPE_CHECKING:  # mypy proves that the class satisfies the router's adapter protocols
    _satisfies_protocol: StreamingAdapter = OpenRouterAdapter()
