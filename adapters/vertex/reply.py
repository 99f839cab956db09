"""The reply mappers (``adapters.base.ReplyMapper``) that ``extract()`` and streams use: one per
API of this package, Vertex AI's and the Gemini API's, which read the same body.

One final ``generateContent`` body maps to the result of a one-call request, or to step 1's
result when the request takes two calls (grounded JSON: the reply is step 1's prose, and the
reshape is a call of its own, see ``two_step``).
"""

from __future__ import annotations

from adapters.base import AdapterResult
from adapters.vertex.apis import GEMINI, VERTEX, GoogleApi
from adapters.vertex.body import reply_body
from adapters.vertex.mapping import map_vertex_reply
from adapters.vertex.request import plan_steps
from adapters.vertex.results import single_result
from router.errors import ResponseParseError
from router.types import LLMRequest

__all__ = ["map_gemini_result", "map_vertex_result"]


def map_vertex_result(reply: object, request: LLMRequest, *, strict: bool = True) -> AdapterResult:
    """The result of one final Vertex AI reply to ``request`` (step 1's, for a two-call request).

    ``strict=False`` never raises: an unusable reply keeps what it has and says why in
    ``warnings``.
    """
    return _mapped_result(reply, request, strict=strict, api=VERTEX)


def map_gemini_result(reply: object, request: LLMRequest, *, strict: bool = True) -> AdapterResult:
    """:func:`map_vertex_result` for a Gemini Developer API reply (citations name "gemini")."""
    return _mapped_result(reply, request, strict=strict, api=GEMINI)


def _mapped_result(
    reply: object, request: LLMRequest, *, strict: bool, api: GoogleApi
) -> AdapterResult:
    try:
        body = reply_body(reply)
    except ValueError as exc:  # an SDK object holding a body that is not JSON
        if strict:
            raise ResponseParseError(
                f"{api.label} reply body is not JSON: {exc}", vendor=api.vendor, reason="non_json"
            ) from exc
        body = {}
    wants_json = request.wants_json and len(plan_steps(request)) == 1
    return single_result(map_vertex_reply(body, api=api), wants_json=wants_json, strict=strict)
