"""OpenRouterAdapter: OpenRouter's chat completions with the web plugin, through ``openai``.

The call is built by :mod:`adapters.openrouter.request`, sent once through the shared
``openai`` clients (:mod:`adapters.openai_calls`, errors under OpenRouter's names) and mapped by
:mod:`adapters.openrouter.reply`. Streams are read by :mod:`adapters.openrouter.stream`; their
answer is complete as streamed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from adapters.base import AdapterResult, StreamingAdapter, StreamReader
from adapters.openai_calls import ClientKey, OpenAICalls, client_key
from adapters.openrouter.reply import map_openrouter_reply
from adapters.openrouter.request import (
    CHAT_PATH,
    DEFAULT_BASE_URL,
    OPENROUTER,
    build_openrouter_params,
)
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = ["OpenRouterAdapter"]


class OpenRouterAdapter:
    """Sends router requests to OpenRouter with its web plugin; one instance serves every call."""

    vendor: Vendor = "openrouter"

    def __init__(self) -> None:
        self._calls = OpenAICalls(OPENROUTER, default_base_url=DEFAULT_BASE_URL)

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send ``request`` once and map the reply (no retries here)."""
        body = self._calls.post(
            _client_key(settings),
            CHAT_PATH,
            build_openrouter_params(request),
            _timeout(request, settings),
        )
        return map_openrouter_reply(body, request)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        body = await self._calls.apost(
            _client_key(settings),
            CHAT_PATH,
            build_openrouter_params(request),
            _timeout(request, settings),
        )
        return map_openrouter_reply(body, request)

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Send ``request`` as a stream once; yield its chunks as dicts (no retries here)."""
        key = _client_key(settings)
        params = build_openrouter_params(request)
        yield from self._calls.stream(key, CHAT_PATH, params, _timeout(request, settings))

    async def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        key = _client_key(settings)
        params = build_openrouter_params(request)
        async for chunk in self._calls.astream(key, CHAT_PATH, params, _timeout(request, settings)):
            yield chunk

    def finish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """A chat completion stream's answer is complete as streamed: no follow-up call."""
        del request, settings
        return reader.finish(strict=True)

    async def afinish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The async twin of :meth:`finish_stream`."""
        del request, settings
        return reader.finish(strict=True)

    def close(self) -> None:
        """Close the sync clients, and the async ones of event loops that are not running."""
        self._calls.close()

    async def aclose(self) -> None:
        """Close the async clients created on the running event loop."""
        await self._calls.aclose()


def _client_key(settings: RouterSettings) -> ClientKey:
    return client_key(OPENROUTER, settings.openrouter_api_key, settings.openrouter_base_url)


def _timeout(request: LLMRequest, settings: RouterSettings) -> float:
    return request.timeout_s or settings.timeout_s


if TYPE_CHECKING:  # mypy proves that the class satisfies the router's adapter protocols
    _satisfies_protocol: StreamingAdapter = OpenRouterAdapter()
