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

Clients and calls are :class:`adapters.sdk.calls.SdkCalls`, shared with the providers reached
through the ``openai`` SDK, whose design the ``anthropic`` SDK shares: HTTP stacks bounded by the
call's deadline and reply limit, following no redirect; clients created lazily and reused, keyed
by the API key and base URL; async clients on the SDK's aiohttp transport, per event loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from adapters.anthropic.errors import ANTHROPIC, translate_anthropic_errors
from adapters.anthropic.reply import map_message
from adapters.anthropic.request import Step, build_message_params, plan_steps
from adapters.base import AdapterResult, StreamingAdapter, StreamReader
from adapters.sdk.calls import ClientKey, SdkCalls, SdkClasses, client_key
from adapters.sdk.http_clients import call_sdk_timeout_s
from adapters.two_step import reshape_is_pointless, step2_skipped, two_step_result
from router.logging import get_logger, grounding_debug_enabled
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = ["AnthropicAdapter"]

_log = get_logger(__name__)

MESSAGES_PATH = "/v1/messages"
ANTHROPIC_SDK = SdkClasses("anthropic", "Anthropic", "AsyncAnthropic")


class AnthropicAdapter:
    """Sends router requests to the Anthropic Messages API; one instance serves every call."""

    vendor: Vendor = "anthropic"

    def __init__(self) -> None:
        self._calls = SdkCalls(ANTHROPIC_SDK, ANTHROPIC, _translated)

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send the request (one call, or two for JSON with citations) and map the reply."""
        key = _client_key(settings)
        results: list[AdapterResult] = []
        for step in plan_steps(request):
            params = _params_for(request, settings, step, results)
            if params is None:
                break
            message = self._calls.post(
                key, MESSAGES_PATH, params, call_sdk_timeout_s(request, settings)
            )
            results.append(self._mapped(request, step, message))
        return _result(request, results)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        key = _client_key(settings)
        results: list[AdapterResult] = []
        for step in plan_steps(request):
            params = _params_for(request, settings, step, results)
            if params is None:
                break
            timeout = call_sdk_timeout_s(request, settings)
            message = await self._calls.apost(key, MESSAGES_PATH, params, timeout)
            results.append(self._mapped(request, step, message))
        return _result(request, results)

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Send step 1 of ``request`` as a stream once; yield its events as dicts (no retries)."""
        key = _client_key(settings)
        params = _first_params(request, settings)
        yield from self._calls.stream(
            key, MESSAGES_PATH, params, call_sdk_timeout_s(request, settings)
        )

    async def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        key = _client_key(settings)
        params = _first_params(request, settings)
        timeout = call_sdk_timeout_s(request, settings)
        async for event in self._calls.astream(key, MESSAGES_PATH, params, timeout):
            yield event

    def finish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The streamed answer, then (JSON with citations) the reshape call, not streamed."""
        results = [reader.finish(strict=True)]
        steps = plan_steps(request)
        params = _params_for(request, settings, steps[-1], results) if len(steps) == 2 else None
        if params is not None:
            key = _client_key(settings)
            message = self._calls.post(
                key, MESSAGES_PATH, params, call_sdk_timeout_s(request, settings)
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
            timeout = call_sdk_timeout_s(request, settings)
            message = await self._calls.apost(key, MESSAGES_PATH, params, timeout)
            results.append(self._mapped(request, steps[-1], message))
        return _result(request, results)

    def close(self) -> None:
        """Close the sync clients, and the async ones of event loops that are not running."""
        self._calls.close()

    async def aclose(self) -> None:
        """Close the async clients created on the running event loop."""
        await self._calls.aclose()

    @staticmethod
    def _mapped(request: LLMRequest, step: Step, message: Any) -> AdapterResult:
        result = map_message(message, wants_json=step.json_output)
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


def _translated(secret: str) -> AbstractContextManager[None]:
    return translate_anthropic_errors(secret=secret)


def _client_key(settings: RouterSettings) -> ClientKey:
    """The client's key and base URL; a missing key is a configuration error, before any call."""
    return client_key(ANTHROPIC, settings.anthropic_api_key, settings.anthropic_base_url)


if TYPE_CHECKING:  # mypy proves that the class satisfies the router's Adapter protocol
    _satisfies_protocol: StreamingAdapter = AnthropicAdapter()
