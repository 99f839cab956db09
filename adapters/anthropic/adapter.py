"""AnthropicAdapter: Claude through the Messages API and the official ``anthropic`` client.

The adapter plans the calls (:mod:`adapters.anthropic.request`: one, or two for JSON with
citations), sends each with the SDK's retries off (the router's retry layer owns retries),
translates SDK errors at the boundary (:mod:`adapters.anthropic.errors`) and maps the reply with
pure functions (:mod:`adapters.anthropic.reply`, :mod:`adapters.anthropic.citations`).

The call goes through the client's documented generic ``post`` to ``/v1/messages`` with the
prepared body and ``cast_to=object``, as the OpenAI adapter does: the parameters are plain JSON
already and the mappers read plain dicts, so building the SDK's ``Message`` (every search
result's ``encrypted_content`` included) only to dump it again is skipped. Authentication,
``anthropic-version``, timeouts and the SDK's errors are those of ``messages.create``; a test
checks that both put the same request on the wire.

``stream()`` sends the same call as a Messages stream (``"stream": true``) and yields its events
as dicts for the registry's stream reader (:mod:`adapters.anthropic.stream`); JSON with
citations streams step 1's prose and makes the reshape call in ``finish_stream``.

The clients' HTTP stacks come from :mod:`adapters.http_clients`: bounded by the call's deadline
and reply limit, following no redirect. Clients are created lazily and reused, keyed by the API
key and base URL, so one adapter serves any settings from any thread. Async clients run on the
SDK's aiohttp transport and belong to the event loop they were created on
(:mod:`adapters.loop_clients`).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import structlog

from adapters.anthropic.errors import KEY_SETTING, translate_anthropic_errors
from adapters.anthropic.reply import map_anthropic_reply
from adapters.anthropic.request import Step, build_message_params, plan_steps
from adapters.base import AdapterResult, StreamingAdapter, StreamReader
from adapters.http_clients import async_client_options, sdk_timeout_s, sync_client
from adapters.loop_clients import LoopClients
from adapters.two_step import reshape_is_pointless, step2_skipped, two_step_result
from router.errors import ConfigurationError
from router.logging import grounding_debug_enabled
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

if TYPE_CHECKING:
    from anthropic import Anthropic, AsyncAnthropic

__all__ = ["AnthropicAdapter"]

_log = structlog.get_logger(__name__)

MESSAGES_PATH = "/v1/messages"

# What shapes a client: the API key and the base URL (None: the SDK's default endpoint).
_ClientKey = tuple[str, str | None]


class AnthropicAdapter:
    """Sends router requests to the Anthropic Messages API; one instance serves every call."""

    vendor: Vendor = "anthropic"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[_ClientKey, Anthropic] = {}
        self._async_clients: LoopClients[_ClientKey, AsyncAnthropic] = LoopClients(
            _new_async_client, _close_async_client
        )

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send the request (one call, or two for JSON with citations) and map the reply."""
        key = _client_key(settings)
        client = self._client(key)
        results: list[AdapterResult] = []
        for step in plan_steps(request):
            params = _params_for(request, settings, step, results)
            if params is None:
                break
            with translate_anthropic_errors(secret=key[0]):
                message = client.post(
                    MESSAGES_PATH,
                    body=params,
                    cast_to=object,
                    options={"timeout": _timeout(request, settings)},
                )
            results.append(self._mapped(request, step, message))
        return _result(request, results)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        key = _client_key(settings)
        client = self._async_clients.get(key)
        results: list[AdapterResult] = []
        for step in plan_steps(request):
            params = _params_for(request, settings, step, results)
            if params is None:
                break
            with translate_anthropic_errors(secret=key[0]):
                message = await client.post(
                    MESSAGES_PATH,
                    body=params,
                    cast_to=object,
                    options={"timeout": _timeout(request, settings)},
                )
            results.append(self._mapped(request, step, message))
        return _result(request, results)

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Send step 1 of ``request`` as a stream once; yield its events as dicts (no retries)."""
        from anthropic import Stream

        key = _client_key(settings)
        params = {**_first_params(request, settings), "stream": True}
        client = self._client(key)
        with translate_anthropic_errors(secret=key[0]):
            events = client.post(
                MESSAGES_PATH,
                body=params,
                cast_to=object,
                stream=True,
                stream_cls=Stream[object],
                options={"timeout": _timeout(request, settings)},
            )
        try:
            with translate_anthropic_errors(secret=key[0]):
                for event in events:
                    if isinstance(event, dict):
                        yield event
        finally:
            events.close()

    async def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        from anthropic import AsyncStream

        key = _client_key(settings)
        params = {**_first_params(request, settings), "stream": True}
        client = self._async_clients.get(key)
        with translate_anthropic_errors(secret=key[0]):
            events = await client.post(
                MESSAGES_PATH,
                body=params,
                cast_to=object,
                stream=True,
                stream_cls=AsyncStream[object],
                options={"timeout": _timeout(request, settings)},
            )
        try:
            with translate_anthropic_errors(secret=key[0]):
                async for event in events:
                    if isinstance(event, dict):
                        yield event
        finally:
            await events.close()

    def finish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The streamed answer, then (JSON with citations) the reshape call, not streamed."""
        results = [reader.finish(strict=True)]
        steps = plan_steps(request)
        params = _params_for(request, settings, steps[-1], results) if len(steps) == 2 else None
        if params is not None:
            key = _client_key(settings)
            with translate_anthropic_errors(secret=key[0]):
                message = self._client(key).post(
                    MESSAGES_PATH,
                    body=params,
                    cast_to=object,
                    options={"timeout": _timeout(request, settings)},
                )
            results.append(self._mapped(request, steps[-1], message))
        return _result(request, results)

    async def afinish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The async twin of :meth:`finish_stream`."""
        results = [reader.finish(strict=True)]
        steps = plan_steps(request)
        params = _params_for(request, settings, steps[-1], results) if len(steps) == 2 else None
        if params is not None:
            key = _client_key(settings)
            with translate_anthropic_errors(secret=key[0]):
                message = await self._async_clients.get(key).post(
                    MESSAGES_PATH,
                    body=params,
                    cast_to=object,
                    options={"timeout": _timeout(request, settings)},
                )
            results.append(self._mapped(request, steps[-1], message))
        return _result(request, results)

    def close(self) -> None:
        """Close the sync clients, and the async ones of event loops that are not running."""
        with self._lock:
            clients = list(self._clients.values())
            self._clients.clear()
        for client in clients:
            client.close()
        self._async_clients.close_idle()

    async def aclose(self) -> None:
        """Close the async clients created on the running event loop."""
        await self._async_clients.aclose()

    def _client(self, key: _ClientKey) -> Anthropic:
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                from anthropic import Anthropic, DefaultHttpxClient

                client = self._clients[key] = Anthropic(
                    api_key=key[0],
                    base_url=key[1],
                    max_retries=0,
                    http_client=sync_client(DefaultHttpxClient),
                )
                if grounding_debug_enabled():
                    _log.debug("anthropic_client_created", kind="sync", clients=len(self._clients))
            return client

    @staticmethod
    def _mapped(request: LLMRequest, step: Step, message: Any) -> AdapterResult:
        result = map_anthropic_reply(message, wants_json=step.json_output)
        if grounding_debug_enabled():
            _log.debug(
                "anthropic_reply_mapped",
                request_id=request.request_id,
                step=step.name,
                response_id=result.metadata.get("response_id"),
                citations=len(result.citations),
                tool_calls=result.tool_call_count,
                grounded_effective=result.grounded_effective,
            )
        return result


def _params_for(
    request: LLMRequest, settings: RouterSettings, step: Step, results: list[AdapterResult]
) -> dict[str, Any] | None:
    """The call's parameters; None when step 1 already made the reshape pointless."""
    answer = None
    if results:
        step1 = results[0]
        if reshape_is_pointless(
            request, grounded_effective=step1.grounded_effective, cited=bool(step1.citations)
        ):
            return None
        answer = step1.content
    return build_message_params(
        request, step, max_uses=settings.anthropic_max_searches, answer=answer
    )


def _first_params(request: LLMRequest, settings: RouterSettings) -> dict[str, Any]:
    """The parameters of the call a stream sends: the only one, or step 1 of two."""
    return build_message_params(
        request, plan_steps(request)[0], max_uses=settings.anthropic_max_searches
    )


def _result(request: LLMRequest, results: list[AdapterResult]) -> AdapterResult:
    if len(results) == 2:
        return two_step_result(results[0], results[1])
    if len(plan_steps(request)) == 2:
        return step2_skipped(results[0])
    return results[0]


def _new_async_client(key: _ClientKey) -> AsyncAnthropic:
    """An async client on the SDK's aiohttp transport (as the OpenAI adapter's, for its CPU)."""
    from anthropic import AsyncAnthropic, DefaultAioHttpClient

    client = AsyncAnthropic(
        api_key=key[0],
        base_url=key[1],
        max_retries=0,
        http_client=DefaultAioHttpClient(**async_client_options()),
    )
    if grounding_debug_enabled():
        _log.debug("anthropic_client_created", kind="async")
    return client


async def _close_async_client(client: AsyncAnthropic) -> None:
    await client.close()


def _client_key(settings: RouterSettings) -> _ClientKey:
    """The client's key and base URL; a missing key is a configuration error, before any call."""
    secret = settings.anthropic_api_key
    key = secret.get_secret_value().strip() if secret is not None else ""
    if not key:
        raise ConfigurationError(
            f"Anthropic: no API key; set {KEY_SETTING} (or GROUNDING_ROUTER_{KEY_SETTING})",
            setting=KEY_SETTING,
            vendor="anthropic",
        )
    return key, settings.anthropic_base_url or None


def _timeout(request: LLMRequest, settings: RouterSettings) -> float:
    """The SDK's own timeout, a margin past the call's deadline (which ends a slow call first)."""
    return sdk_timeout_s(request.timeout_s or settings.timeout_s)


if TYPE_CHECKING:  # mypy proves that the class satisfies the router's Adapter protocol
    _satisfies_protocol: StreamingAdapter = AnthropicAdapter()
