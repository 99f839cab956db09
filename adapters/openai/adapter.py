"""OpenAIAdapter: the Responses API through the official ``openai`` client.

The adapter builds the call (:mod:`adapters.openai.request`), sends it once with the SDK's retries
off (the router's retry layer owns retries; only a refused forced tool or ``web_search`` gets one
changed request, :mod:`adapters.openai.fallbacks`), translates SDK errors at the boundary
(:mod:`adapters.openai.errors`, which documents how each failure is classified) and maps the reply
with pure functions (:mod:`adapters.openai_compatible.reply`,
:mod:`adapters.openai_compatible.citations`). The call goes through the client's documented generic
``post`` with the prepared body and ``cast_to=object``: the parameters are already plain JSON, and
the mappers read plain dicts, so the SDK's per-call transform of the typed parameters and its
``Response`` model (built only to be dumped again) were about half of each call's CPU.
Authentication, timeouts and the SDK's errors are unchanged; the request on the wire is the same as
``responses.create`` sends. Streams take the same route with ``stream=True``: the SDK decodes the
event stream and hands each event's data over as the plain dict it is, which the stream reader
(:mod:`adapters.openai.stream`) reads; no typed event is built.

Clients, their HTTP stacks (bounded by the call's deadline and reply limit, following no redirect),
their reuse per API key and base URL and per event loop, and the translation of the SDK's errors are
:class:`adapters.openai_compatible.calls.OpenAICalls`, shared with every provider reached through
the ``openai`` SDK.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from adapters.base import AdapterResult, StreamingAdapter
from adapters.openai.citations import (
    OpenAIGrounding,
    _extract_openai_citations,
    extract_openai_grounding,
)
from adapters.openai.fallbacks import fallback_for
from adapters.openai.reply import map_openai_reply
from adapters.openai.request import build_response_params
from adapters.openai_compatible.adapter import OpenAICompatibleAdapter
from adapters.openai_compatible.calls import ClientKey, client_key
from adapters.openai_compatible.errors import OPENAI
from adapters.sdk.http_clients import call_sdk_timeout_s
from router.errors import ProviderRequestError
from router.logging import get_logger, grounding_debug_enabled
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = [
    "OpenAIAdapter",
    "OpenAIGrounding",
    "_extract_openai_citations",
    "extract_openai_grounding",
]

_log = get_logger(__name__)
T = TypeVar("T")

RESPONSES_PATH = "/responses"


class OpenAIAdapter(OpenAICompatibleAdapter):
    """Sends router requests to the OpenAI Responses API; one instance serves every call.

    The clients, their closing and the stream's finish are the compatible base's; what is
    OpenAI's own is the Responses body and the one changed request a refusal gets.
    """

    vendor: Vendor = "openai"
    service = OPENAI
    path = RESPONSES_PATH

    def _params(self, request: LLMRequest, settings: RouterSettings) -> dict[str, Any]:
        return build_response_params(request, force_search=settings.openai_force_search)

    def _client_key(self, settings: RouterSettings) -> ClientKey:
        return client_key(OPENAI, settings.openai_api_key, settings.openai_base_url)

    def _map(self, body: object, request: LLMRequest) -> AdapterResult:
        return self._mapped(body, request, [])

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send ``request`` once and map the reply (no retries here, but for the changed
        request a refused forced tool or ``web_search`` gets, :mod:`adapters.openai.fallbacks`)."""
        key = self._client_key(settings)
        timeout = call_sdk_timeout_s(request, settings)
        body, fallbacks = _sent(
            lambda params: self._calls.post(key, self.path, params, timeout),
            self._params(request, settings),
            request,
        )
        return self._mapped(body, request, fallbacks)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        key = self._client_key(settings)
        timeout = call_sdk_timeout_s(request, settings)
        body, fallbacks = await _asent(
            lambda params: self._calls.apost(key, self.path, params, timeout),
            self._params(request, settings),
            request,
        )
        return self._mapped(body, request, fallbacks)

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Send ``request`` as a stream once; yield its events as dicts (no retries here, but
        for a refused forced tool or ``web_search`` when the stream opens, as in ``complete``)."""
        key = self._client_key(settings)
        timeout = call_sdk_timeout_s(request, settings)
        params = self._params(request, settings)
        fallbacks: list[str] = []
        while True:
            events = self._calls.stream(key, self.path, params, timeout)
            try:
                # The stream opens on the first pull: a refusal comes before any event.
                first = next(events)
            except StopIteration:
                return
            except ProviderRequestError as error:
                params = _changed_params(error, params, request, fallbacks)
                continue
            yield first
            yield from events
            return

    async def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        key = self._client_key(settings)
        timeout = call_sdk_timeout_s(request, settings)
        params = self._params(request, settings)
        fallbacks: list[str] = []
        while True:
            events = self._calls.astream(key, self.path, params, timeout)
            try:
                first = await anext(events)
            except StopAsyncIteration:
                return
            except ProviderRequestError as error:
                params = _changed_params(error, params, request, fallbacks)
                continue
            yield first
            async for event in events:
                yield event
            return

    @staticmethod
    def _mapped(response: Any, request: LLMRequest, fallbacks: list[str]) -> AdapterResult:
        result = map_openai_reply(response, request)
        if fallbacks:
            result.metadata["request_fallbacks"] = list(fallbacks)
        if grounding_debug_enabled():
            _log.debug(
                "openai_reply_mapped",
                request_id=request.request_id,
                response_id=result.metadata.get("response_id"),
                citations=len(result.citations),
                tool_calls=result.tool_call_count,
                grounded_effective=result.grounded_effective,
            )
        return result


def _sent(
    post: Callable[[dict[str, Any]], T], params: dict[str, Any], request: LLMRequest
) -> tuple[T, list[str]]:
    """``post(params)``, sent once more changed when the API refuses a forced tool or
    ``web_search`` (:mod:`adapters.openai.fallbacks`); the changes made, in order."""
    fallbacks: list[str] = []
    while True:
        try:
            return post(params), fallbacks
        except ProviderRequestError as error:
            params = _changed_params(error, params, request, fallbacks)


async def _asent(
    post: Callable[[dict[str, Any]], Awaitable[T]], params: dict[str, Any], request: LLMRequest
) -> tuple[T, list[str]]:
    """The async twin of :func:`_sent`."""
    fallbacks: list[str] = []
    while True:
        try:
            return await post(params), fallbacks
        except ProviderRequestError as error:
            params = _changed_params(error, params, request, fallbacks)


def _changed_params(
    error: ProviderRequestError,
    params: dict[str, Any],
    request: LLMRequest,
    fallbacks: list[str],
) -> dict[str, Any]:
    """The request to send once more after ``error``, noting the change; else ``error`` stands."""
    found = fallback_for(error, params)
    if found is None:
        raise error
    change, changed = found
    fallbacks.append(change)
    _log.warning(
        "openai_request_fallback",
        fallback=change,
        status_code=error.status_code,
        vendor="openai",
        model=request.model,
        request_id=request.request_id,
    )
    return changed


if TYPE_CHECKING:  # mypy proves that the class satisfies the router's adapter protocols
    _satisfies_protocol: StreamingAdapter = OpenAIAdapter()
