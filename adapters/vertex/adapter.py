"""The adapters of this package: Vertex AI and the Gemini Developer API through google-genai.

``VertexAdapter`` (``vertexai=True``) and ``GeminiAdapter`` (``vertexai=False``, an API key)
share everything but their clients and how errors name them: each builds its call
(``request``), sends it through the SDK with SDK retries off and one request per call
(``clients``, ``gemini_clients``), translates SDK errors at that boundary (``errors``, with the
API's names from ``apis``), and maps the reply with pure functions (``mapping``).
Grounded JSON takes two calls (``two_step``). Streams (``stream`` / ``astream``) send step 1
(or the only call) through ``generate_content_stream`` and yield each chunk as its REST body
(the SDK refuses to hand back raw bodies while streaming, so each typed chunk is dumped);
``finish_stream`` then makes the reshape call of grounded JSON. Redirect links (``vertexaisearch``
redirect URIs) are resolved by the router, for every provider alike, when ``resolve_redirects`` is
on.

The extractors are importable from here: ``_extract_vertex_citations(response, resolved=None)``
and ``extract_vertex_grounding(response)`` take an SDK ``GenerateContentResponse`` or a dict.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from adapters.base import AdapterResult, StreamingAdapter, StreamReader
from adapters.sdk.http_clients import sdk_timeout_s
from adapters.two_step import reshape_is_pointless, step2_skipped
from adapters.vertex.apis import GEMINI, VERTEX, GoogleApi
from adapters.vertex.body import reply_body
from adapters.vertex.citations import (
    VertexReply,
    extract_vertex_grounding,
    read_vertex_reply,
)
from adapters.vertex.citations import extract_vertex_citations as _extract_vertex_citations
from adapters.vertex.clients import GenAIClients, VertexClients, timeout_ms
from adapters.vertex.errors import translated_errors
from adapters.vertex.gemini_clients import GeminiClients
from adapters.vertex.grounding import VertexGrounding
from adapters.vertex.reply import require_text, single_result
from adapters.vertex.request import Step, build_config, build_contents, plan_steps
from adapters.vertex.two_step import two_step_from_step1, two_step_result
from router.logging import get_logger, grounding_debug_enabled
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = [
    "GeminiAdapter",
    "VertexAdapter",
    "VertexGrounding",
    "_extract_vertex_citations",
    "extract_vertex_grounding",
]

_log = get_logger(__name__)


class _GoogleGenAIAdapter:
    """Gemini with Google Search grounding through one of the two APIs; one instance serves any
    settings."""

    vendor: Vendor
    _api: GoogleApi

    def __init__(self, clients: GenAIClients[Any]) -> None:
        self._clients = clients

    # -- the protocol -----------------------------------------------------------------------

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send the request (one call, or two for grounded JSON) and map the reply."""
        client = self._clients.sync_client(settings)
        replies: list[VertexReply] = []
        for step in plan_steps(request):
            if (call := _call_for(request, settings, step, replies)) is None:
                break
            with translated_errors(self._api):
                body = reply_body(client.models.generate_content(**call))
            replies.append(self._mapped(request, step, body))
        return _result(request, replies)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        client = self._clients.async_client(settings)
        replies: list[VertexReply] = []
        for step in plan_steps(request):
            if (call := _call_for(request, settings, step, replies)) is None:
                break
            with translated_errors(self._api):
                body = reply_body(await client.models.generate_content(**call))
            replies.append(self._mapped(request, step, body))
        return _result(request, replies)

    def stream(self, request: LLMRequest, settings: RouterSettings) -> Iterator[dict[str, Any]]:
        """Stream step 1 (or the only call) once; yield its chunks as REST bodies."""
        client = self._clients.sync_client(settings)
        call = _call_for(request, settings, plan_steps(request)[0], [], streaming=True)
        assert call is not None
        with translated_errors(self._api):
            for chunk in client.models.generate_content_stream(**call):
                yield reply_body(chunk)

    async def astream(
        self, request: LLMRequest, settings: RouterSettings
    ) -> AsyncIterator[dict[str, Any]]:
        """The async twin of :meth:`stream`."""
        client = self._clients.async_client(settings)
        call = _call_for(request, settings, plan_steps(request)[0], [], streaming=True)
        assert call is not None
        with translated_errors(self._api):
            async for chunk in await client.models.generate_content_stream(**call):
                yield reply_body(chunk)

    def finish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The streamed step's result, then the reshape call of grounded JSON."""
        step1 = reader.finish(strict=True)
        reshape = _reshape_call(request, settings, step1)
        if reshape is None:
            return step1
        step, call = reshape
        with translated_errors(self._api):
            body = reply_body(self._clients.sync_client(settings).models.generate_content(**call))
        return two_step_from_step1(step1, self._mapped(request, step, body))

    async def afinish_stream(
        self, request: LLMRequest, settings: RouterSettings, reader: StreamReader
    ) -> AdapterResult:
        """The async twin of :meth:`finish_stream`."""
        step1 = reader.finish(strict=True)
        reshape = _reshape_call(request, settings, step1)
        if reshape is None:
            return step1
        step, call = reshape
        client = self._clients.async_client(settings)
        with translated_errors(self._api):
            body = reply_body(await client.models.generate_content(**call))
        return two_step_from_step1(step1, self._mapped(request, step, body))

    def close(self) -> None:
        """Close the SDK clients this adapter created."""
        self._clients.close()

    async def aclose(self) -> None:
        """Close the async SDK clients created on the running event loop."""
        await self._clients.aclose()

    # -- helpers ------------------------------------------------------------------------------

    def _mapped(
        self,
        request: LLMRequest,
        step: Step,
        body: dict[str, Any],
    ) -> VertexReply:
        reply = read_vertex_reply(body, api=self._api)
        if grounding_debug_enabled():
            _log.debug(
                "vertex_reply_mapped",
                vendor=self.vendor,
                request_id=request.request_id,
                model=request.model,
                step=step.name,
                citations=len(reply.citations),
                grounded_effective=reply.grounding.grounded_effective,
                finish_reason=reply.finish_reason,
            )
        return reply


class VertexAdapter(_GoogleGenAIAdapter):
    """Vertex AI Gemini with Google Search grounding (project, location, OAuth credentials)."""

    vendor: Vendor = "vertex"
    _api = VERTEX

    def __init__(self) -> None:
        super().__init__(VertexClients())


class GeminiAdapter(_GoogleGenAIAdapter):
    """The Gemini Developer API with Google Search grounding (an API key)."""

    vendor: Vendor = "gemini"
    _api = GEMINI

    def __init__(self) -> None:
        super().__init__(GeminiClients())


def _call_for(
    request: LLMRequest,
    settings: RouterSettings,
    step: Step,
    replies: list[VertexReply],
    *,
    streaming: bool = False,
) -> dict[str, Any] | None:
    """``generate_content``'s arguments for ``step``; None when step 1 makes it pointless."""
    if replies and reshape_is_pointless(
        request,
        grounded_effective=replies[0].grounding.grounded_effective,
        cited=bool(replies[0].citations),
    ):
        return None
    answer = require_text(replies[-1], step="grounded (step 1)") if replies else None
    return _call(request, settings, step, answer, streaming=streaming)


def _call(
    request: LLMRequest,
    settings: RouterSettings,
    step: Step,
    answer: str | None,
    *,
    streaming: bool = False,
) -> dict[str, Any]:
    # The client's own timeout is the settings' (clients.py); only a request's own differs.
    own = request.timeout_s
    timeout = None if own is None or own == settings.timeout_s else timeout_ms(sdk_timeout_s(own))
    return {
        "model": request.model,
        "contents": build_contents(request, step, answer),
        "config": build_config(request, step, timeout, streaming=streaming),
    }


def _reshape_call(
    request: LLMRequest, settings: RouterSettings, step1: AdapterResult
) -> tuple[Step, dict[str, Any]] | None:
    """The reshape step and its call after a streamed step 1; None when there is none to make.

    A reshape that REQUIRED grounding makes pointless is skipped as in :func:`_result`.
    """
    steps = plan_steps(request)
    if len(steps) < 2:
        return None
    if reshape_is_pointless(
        request, grounded_effective=step1.grounded_effective, cited=bool(step1.citations)
    ):
        step2_skipped(step1)
        return None
    return steps[1], _call(request, settings, steps[1], step1.content)


def _result(request: LLMRequest, replies: list[VertexReply]) -> AdapterResult:
    if len(replies) == 2:
        return two_step_result(replies[0], replies[1])
    if len(plan_steps(request)) == 2:
        return step2_skipped(single_result(replies[0], wants_json=False))
    return single_result(replies[0], wants_json=request.wants_json)


if TYPE_CHECKING:  # mypy proves that both classes satisfy the router's adapter protocols
    _vertex_satisfies_protocol: StreamingAdapter = VertexAdapter()
    _gemini_satisfies_protocol: StreamingAdapter = GeminiAdapter()
