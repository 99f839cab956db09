"""The Vertex AI adapter: Gemini through google-genai (``vertexai=True``) with Google Search.

``VertexAdapter`` builds each call (``request``), sends it through the SDK with SDK
retries off and one request per call (``clients``), translates SDK errors at that
boundary (``errors``), and maps the reply with pure functions (``mapping``).
Grounded JSON takes two calls (``two_step``). With ``resolve_redirects`` on, the
``vertexaisearch`` redirect URIs of a reply go through one lazily built ``RedirectResolver``
before its citations are extracted, so they carry the end-site URL.

The extractors are importable from here: ``_extract_vertex_citations(response, resolved=None)``
and ``extract_vertex_grounding(response)`` take an SDK ``GenerateContentResponse`` or a dict.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import structlog

from adapters.base import AdapterResult
from adapters.vertex.body import reply_body
from adapters.vertex.clients import VertexClients, timeout_ms
from adapters.vertex.errors import translated_errors
from adapters.vertex.grounding import VertexGrounding
from adapters.vertex.mapping import (
    VertexReply,
    extract_vertex_grounding,
    map_vertex_reply,
    redirect_uris,
)
from adapters.vertex.mapping import extract_vertex_citations as _extract_vertex_citations
from adapters.vertex.request import Step, build_config, build_contents, plan_steps
from adapters.vertex.results import require_text, single_result
from adapters.vertex.two_step import two_step_result
from router.citations import RedirectResolver
from router.logging import grounding_debug_enabled
from router.settings import RouterSettings
from router.types import LLMRequest, Vendor

__all__ = [
    "VertexAdapter",
    "VertexGrounding",
    "_extract_vertex_citations",
    "extract_vertex_grounding",
]

_log = structlog.get_logger(__name__)


class VertexAdapter:
    """Vertex AI Gemini with Google Search grounding; one instance serves any settings.

    ``resolver`` replaces the ``RedirectResolver`` the adapter would build from the first
    settings with ``resolve_redirects`` on; either way it is used only while that setting is on.
    """

    vendor: Vendor = "vertex"

    def __init__(self, *, resolver: RedirectResolver | None = None) -> None:
        self._clients = VertexClients()
        self._resolver = resolver
        self._resolver_lock = threading.Lock()

    # -- the protocol -----------------------------------------------------------------------

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send the request (one call, or two for grounded JSON) and map the reply."""
        client = self._clients.sync_client(settings)
        replies: list[VertexReply] = []
        for step in plan_steps(request):
            if (call := _call_for(request, settings, step, replies)) is None:
                break
            with translated_errors():
                body = reply_body(client.models.generate_content(**call))
            resolver = self._resolver_for(settings)
            resolved = resolver.resolve_many_sync(redirect_uris(body)) if resolver else None
            replies.append(self._mapped(request, step, body, resolved))
        return _result(request, replies)

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        client = self._clients.async_client(settings)
        replies: list[VertexReply] = []
        for step in plan_steps(request):
            if (call := _call_for(request, settings, step, replies)) is None:
                break
            with translated_errors():
                body = reply_body(await client.models.generate_content(**call))
            resolver = self._resolver_for(settings)
            resolved = await resolver.resolve_many(redirect_uris(body)) if resolver else None
            replies.append(self._mapped(request, step, body, resolved))
        return _result(request, replies)

    def close(self) -> None:
        """Close the SDK clients this adapter created."""
        self._clients.close()

    async def aclose(self) -> None:
        """Close the async SDK clients created on the running event loop."""
        await self._clients.aclose()

    # -- helpers ------------------------------------------------------------------------------

    def _resolver_for(self, settings: RouterSettings) -> RedirectResolver | None:
        """The redirect resolver, built on first use; None while ``resolve_redirects`` is off."""
        if not settings.resolve_redirects:
            return None
        with self._resolver_lock:
            if self._resolver is None:
                self._resolver = RedirectResolver(settings)
            return self._resolver

    @staticmethod
    def _mapped(
        request: LLMRequest,
        step: Step,
        body: dict[str, Any],
        resolved: Mapping[str, str] | None,
    ) -> VertexReply:
        reply = map_vertex_reply(body, resolved)
        if grounding_debug_enabled():
            _log.debug(
                "vertex_reply_mapped",
                request_id=request.request_id,
                model=request.model,
                step=step.name,
                citations=len(reply.citations),
                grounded_effective=reply.grounding.grounded_effective,
                finish_reason=reply.finish_reason,
                redirects_resolved=len(resolved or {}),
            )
        return reply


def _call_for(
    request: LLMRequest, settings: RouterSettings, step: Step, replies: list[VertexReply]
) -> dict[str, Any] | None:
    """``generate_content``'s arguments for ``step``; None when step 1 makes it pointless."""
    if replies and _reshape_is_pointless(request, replies[0]):
        return None
    answer = require_text(replies[-1], step="grounded (step 1)") if replies else None
    timeout = timeout_ms(request.timeout_s or settings.timeout_s)
    return {
        "model": request.model,
        "contents": build_contents(request, step, answer),
        "config": build_config(request, step, timeout),
    }


def _reshape_is_pointless(request: LLMRequest, step1: VertexReply) -> bool:
    """REQUIRED grounding already failed in step 1: the router will reject whatever step 2 says."""
    grounding = step1.grounding
    return request.requires_grounding and not (grounding.grounded_effective and step1.citations)


def _result(request: LLMRequest, replies: list[VertexReply]) -> AdapterResult:
    if len(replies) == 2:
        return two_step_result(replies[0], replies[1])
    if len(plan_steps(request)) == 2:
        # Step 2 was skipped: return step 1's prose so REQUIRED post-validation can reject it
        # with the grounding evidence intact, without paying for a reshape nobody can use.
        result = single_result(replies[0], wants_json=False)
        result.metadata.update(two_step=True, step2_skipped="required grounding failed in step 1")
        return result
    return single_result(replies[0], wants_json=request.wants_json)
