"""The replies of status and ``html`` faults, in the shape of the API a request reached.

Each API shapes its own errors (its module's ``ErrorShapes``): OpenAI answers ``{"error":
{"message", "type", "param", "code"}}``, Google (Vertex AI and the Gemini API) ``{"error":
{"code", "message", "status"}}``, Perplexity ``{"error": {"message", "type", "code"}}``,
OpenRouter ``{"error": {"message", "code"}}`` and Anthropic ``{"type": "error", "error":
{"type", "message"}, "request_id"}``. What a fault adds is the same for all: the status it
names, its Retry-After, or the HTML page of the proxy in front of the service.
"""

from __future__ import annotations

from router.emulator.apis import ProviderApi
from router.emulator.faults import FaultSpec
from router.emulator.reply import Reply

__all__ = ["fault_reply", "html_page"]

_REASONS = {502: "Bad Gateway", 503: "Service Temporarily Unavailable"}


def fault_reply(api: ProviderApi, spec: FaultSpec, model: str) -> Reply:
    """The reply of a status fault (429, 500, 503, 529, 400, 401) or an html fault."""
    if spec.kind == "html":
        return html_page(api, spec.html_status)
    return api.errors.fault(int(spec.kind), spec.retry_after_s, model)


def html_page(api: ProviderApi, status: int) -> Reply:
    """The HTML error page the proxy in front of ``api`` answers with."""
    page = api.errors.proxy_page.format(status=status, reason=_REASONS.get(status, "Error"))
    return Reply(status, page.encode(), content_type="text/html; charset=UTF-8")
