"""The adapter every provider reached through the ``openai`` SDK shares.

One call (or one stream) to one path of one OpenAI-compatible API, sent through
:class:`adapters.openai_compatible.calls.OpenAICalls`: a subclass names its service, path and
default base URL, and says how to build the body (``_params``), where its key and base URL are in
the settings (``_client_key``) and how to map a reply (``_map``). Their streams are complete as
streamed: no follow-up call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

from adapters.base import AdapterResult, StreamReader
from adapters.openai_compatible.calls import ClientKey, OpenAICalls
from adapters.openai_compatible.errors import OpenAIService
from adapters.sdk.http_clients import call_sdk_timeout_s
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = ["OpenAICompatibleAdapter"]


class OpenAICompatibleAdapter:
    """One OpenAI-compatible API behind the router; one instance serves every call."""

    vendor: Vendor
    service: ClassVar[OpenAIService]
    path: ClassVar[str]
    default_base_url: ClassVar[str | None] = None

    def __init__(self) -> None:
        self._calls = OpenAICalls(self.service, default_base_url=self.default_base_url)

    # -- what a provider says ---------------------------------------------------------------

    def _params(self, request: LLMRequest, settings: RouterSettings) -> dict[str, Any]:
        """The JSON body of the call for ``request`` under ``settings``."""
        raise NotImplementedError

    def _client_key(self, settings: RouterSettings) -> ClientKey:
        """The API key and base URL the call goes with."""
        raise NotImplementedError

    def _map(self, body: object, request: LLMRequest) -> AdapterResult:
        """The result of one reply."""
        raise NotImplementedError

    # -- the protocol -----------------------------------------------------------------------

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send ``request`` once and map the reply (no retries here)."""
        key = self._client_key(settings)
        body = self._calls.post(
            key, self.path, self._params(request, settings), call_sdk_timeout_s(request, settings)
        )
        return self._map(body, request)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        key = self._client_key(settings)
        params = self._params(request, settings)
        body = await self._calls.apost(
            key, self.path, params, call_sdk_timeout_s(request, settings)
        )
        return self._map(body, request)

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Send ``request`` as a stream once; yield its events as dicts (no retries here)."""
        key = self._client_key(settings)
        params = self._params(request, settings)
        yield from self._calls.stream(key, self.path, params, call_sdk_timeout_s(request, settings))

    async def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        key = self._client_key(settings)
        params = self._params(request, settings)
        async for event in self._calls.astream(
            key, self.path, params, call_sdk_timeout_s(request, settings)
        ):
            yield event

    def finish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The answer is complete as streamed: no follow-up call."""
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
