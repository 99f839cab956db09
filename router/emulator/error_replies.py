"""Error replies in each service's own shape, status codes and headers.

OpenAI answers ``{"error": {"message", "type", "param", "code"}}``; Google (Vertex AI and the
Gemini API) answers ``{"error": {"code", "message", "status"}}``. Proxies in front of both answer
HTML pages. The Gemini API answers a bad API key with 400 ``INVALID_ARGUMENT`` and the
``ErrorInfo`` reason ``API_KEY_INVALID``, a missing one with 403 ``PERMISSION_DENIED``, and says
when to retry a 429 in a ``RetryInfo`` detail rather than a ``Retry-After`` header. Perplexity
answers ``{"error": {"message", "type", "code"}}`` (``invalid_model`` for an unknown model), and
its proxy answers a bad or missing key with an HTML 401 page. Anthropic answers ``{"type":
"error", "error": {"type", "message"}, "request_id"}``, with its own 529 ``overloaded_error``.
"""

from __future__ import annotations

from typing import Any

from router.emulator.faults import FaultSpec, retry_after_header
from router.emulator.reply import Reply, google_json, openai_json
from router.emulator.wire import Api

__all__ = [
    "anthropic_error",
    "bad_request",
    "fault_reply",
    "google_error",
    "html_page",
    "missing_auth",
    "not_found",
    "openai_error",
    "unparseable_body",
]

_GOOGLE_APIS: tuple[Api, ...] = ("vertex", "gemini")
_GOOGLE_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
_GOOGLE_MESSAGE = {
    400: "Request contains an invalid argument.",
    401: (
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
        "cookie or other valid authentication credential. See "
        "https://developers.google.com/identity/sign-in/web/devconsole-project."
    ),
    429: (
        "Resource exhausted. Please try again later. Please refer to "
        "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details."
    ),
    500: "Internal error encountered.",
    503: "The service is currently unavailable.",
}


def openai_error(
    status: int,
    message: str,
    *,
    kind: str,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An OpenAI error reply; ``kind`` is the error ``type`` (invalid_request_error, ...)."""
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return Reply(status, openai_json(body).encode(), headers=headers or {})


_ANTHROPIC_ERRORS = {
    400: ("invalid_request_error", "The request could not be processed."),
    401: ("authentication_error", "invalid x-api-key"),
    403: (
        "permission_error",
        "Your API key does not have permission to use the specified resource.",
    ),
    404: ("not_found_error", "Not found"),
    429: (
        "rate_limit_error",
        "This request would exceed the rate limit for your organization of 50 requests per "
        "minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.",
    ),
    500: ("api_error", "Internal server error"),
    503: ("api_error", "Service unavailable"),
    529: ("overloaded_error", "Overloaded"),
}


def anthropic_error(
    status: int, message: str | None = None, *, headers: dict[str, str] | None = None
) -> Reply:
    """An Anthropic error reply, typed as the API types each status."""
    kind, default = _ANTHROPIC_ERRORS.get(status, ("api_error", "Internal server error"))
    body = {
        "type": "error",
        "error": {"type": kind, "message": message or default},
        "request_id": "req_011CEmulator" + "0" * 12,
    }
    return Reply(status, openai_json(body).encode(), headers=headers or {})


def google_error(
    status: int,
    message: str | None = None,
    *,
    headers: dict[str, str] | None = None,
    details: list[dict[str, Any]] | None = None,
) -> Reply:
    """A Google API error reply with the canonical status name for the HTTP code."""
    error: dict[str, Any] = {
        "code": status,
        "message": message or _GOOGLE_MESSAGE.get(status, "Unknown error."),
        "status": _GOOGLE_STATUS.get(status, "UNKNOWN"),
    }
    if details:
        error["details"] = details
    return Reply(status, google_json({"error": error}).encode(), headers=headers or {})


_GEMINI_KEY_INVALID = "API key not valid. Please pass a valid API key."
_GEMINI_NO_KEY = (
    "Method doesn't allow unregistered callers (callers without established identity). Please "
    "use API Key or other form of API consumer identity to call this API."
)


def _gemini_fault_reply(status: int, spec: FaultSpec) -> Reply:
    """The Gemini API's own shapes: a bad key is a 400, a rate limit says its delay inside."""
    if status == 401:
        return google_error(
            400,
            _GEMINI_KEY_INVALID,
            details=[
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                },
                {
                    "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                    "locale": "en-US",
                    "message": _GEMINI_KEY_INVALID,
                },
            ],
        )
    if status == 429:
        delay = spec.retry_after_s if spec.retry_after_s is not None else 1.0
        return google_error(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            details=[
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            "generate_content_free_tier_requests",
                            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                        }
                    ],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{delay:g}s"},
            ],
        )
    headers = {}
    if spec.retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(spec.retry_after_s)
    return google_error(status, headers=headers)


_PERPLEXITY_401_PAGE = (
    "<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n"
    "<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>openresty/1.27.4"
    "</center>\r\n</body>\r\n</html>\r\n"
)
_PERPLEXITY_KINDS = {
    400: ("bad_request", "Invalid value in the request: the request could not be processed."),
    429: ("rate_limit_exceeded", "Rate limit exceeded. Please retry after a short while."),
    500: ("internal_server_error", "Internal server error."),
    503: ("service_unavailable", "The service is temporarily unavailable."),
}


def perplexity_error(
    status: int, message: str, *, kind: str, headers: dict[str, str] | None = None
) -> Reply:
    """A Perplexity error reply: ``{"error": {"message", "type", "code"}}``."""
    body = {"error": {"message": message, "type": kind, "code": status}}
    return Reply(status, openai_json(body).encode(), headers=headers or {})


def _perplexity_fault_reply(status: int, spec: FaultSpec) -> Reply:
    if status == 401:
        return missing_auth("perplexity")
    headers = {}
    if spec.retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(spec.retry_after_s)
    kind, message = _PERPLEXITY_KINDS.get(status, _PERPLEXITY_KINDS[503])
    return perplexity_error(status, message, kind=kind, headers=headers)


_OPENROUTER_MESSAGES = {
    400: "Provider returned error",
    401: "No auth credentials found",
    429: "Rate limit exceeded: too many requests. Please retry shortly.",
    500: "Internal Server Error",
    503: "No instances available",
}


def openrouter_error(status: int, message: str, *, headers: dict[str, str] | None = None) -> Reply:
    """An OpenRouter error reply: ``{"error": {"message", "code"}}``."""
    body = {"error": {"message": message, "code": status}}
    return Reply(status, openai_json(body).encode(), headers=headers or {})


def fault_reply(api: Api, spec: FaultSpec, model: str) -> Reply:
    """The reply of a status fault (429, 500, 503, 400, 401) or an html fault."""
    if spec.kind == "html":
        return html_page(api, spec.html_status)
    status = int(spec.kind)
    if api == "gemini":
        return _gemini_fault_reply(status, spec)
    if api == "perplexity":
        return _perplexity_fault_reply(status, spec)
    headers: dict[str, str] = {}
    if api == "openrouter":
        if spec.retry_after_s is not None:
            headers["Retry-After"] = retry_after_header(spec.retry_after_s)
        return openrouter_error(
            status, _OPENROUTER_MESSAGES.get(status, _OPENROUTER_MESSAGES[503]), headers=headers
        )
    if spec.retry_after_s is not None:
        headers["Retry-After"] = retry_after_header(spec.retry_after_s)
        if api == "openai":
            headers["retry-after-ms"] = str(round(spec.retry_after_s * 1000))
    if api in _GOOGLE_APIS:
        return google_error(status, headers=headers)
    if api == "anthropic":
        if status == 429:
            headers |= {"anthropic-ratelimit-requests-limit": "50"}
            headers["anthropic-ratelimit-requests-remaining"] = "0"
        return anthropic_error(status, headers=headers)
    if status == 429:
        wait = spec.retry_after_s or 1.0
        headers |= {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "0"}
        return openai_error(
            429,
            f"Rate limit reached for {model} in organization org-emulator on requests per min "
            f"(RPM): Limit 500, Used 500, Requested 1. Please try again in {wait:g}s. Visit "
            "https://platform.openai.com/account/rate-limits to learn more.",
            kind="requests",
            code="rate_limit_exceeded",
            headers=headers,
        )
    if status == 401:
        return missing_auth(api, presented=True)
    if status == 400:
        return openai_error(
            400,
            "Invalid value for 'input': the request could not be processed.",
            kind="invalid_request_error",
            param="input",
            code="invalid_value",
        )
    message = (
        "The server had an error while processing your request. Sorry about that!"
        if status == 500
        else "The server is overloaded or not ready yet."
    )
    return openai_error(status, message, kind="server_error", headers=headers)


def bad_request(
    api: Api, message: str, *, param: str | None = None, code: str | None = None
) -> Reply:
    """HTTP 400 for a request the real service would refuse."""
    if api in _GOOGLE_APIS:
        return google_error(400, message)
    if api == "openrouter":
        return openrouter_error(400, message)
    if api == "perplexity":
        kind = "invalid_model" if message.startswith("Invalid model") else "bad_request"
        return perplexity_error(400, message, kind=kind)
    if api == "anthropic":
        return anthropic_error(400, message)
    return openai_error(400, message, kind="invalid_request_error", param=param, code=code)


def unparseable_body(api: Api) -> Reply:
    """HTTP 400 for a body that is not JSON."""
    if api in _GOOGLE_APIS:
        return google_error(400, "Invalid JSON payload received. Unexpected token.")
    if api == "perplexity":
        return perplexity_error(400, "Invalid JSON in the request body.", kind="bad_request")
    if api == "openrouter":
        return openrouter_error(400, "Invalid JSON body")
    if api == "anthropic":
        return anthropic_error(400, "There was an error parsing the body of your request.")
    return openai_error(
        400,
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
        "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
        "sent was not valid JSON.)",
        kind="invalid_request_error",
    )


def missing_auth(api: Api, *, presented: bool = False) -> Reply:
    """HTTP 401 as each service answers a missing or rejected credential (Gemini: 403)."""
    if api == "gemini":
        return google_error(403, _GEMINI_NO_KEY)
    if api == "perplexity":
        return Reply(401, _PERPLEXITY_401_PAGE.encode(), content_type="text/html")
    if api == "openrouter":
        return openrouter_error(401, _OPENROUTER_MESSAGES[401])
    if api == "vertex":
        return google_error(401)
    if api == "anthropic":
        return anthropic_error(
            401, "invalid x-api-key" if presented else "x-api-key header is required"
        )
    if presented:
        return openai_error(
            401,
            "Incorrect API key provided. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            kind="invalid_request_error",
            code="invalid_api_key",
        )
    return openai_error(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization "
        "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        kind="invalid_request_error",
    )


def not_found(api: Api | None, method: str, path: str) -> Reply:
    """HTTP 404 for a path no service serves here."""
    if api in _GOOGLE_APIS:
        return google_error(404, f"Requested entity was not found: {path}")
    if api == "perplexity":
        return perplexity_error(404, f"Not Found ({method} {path})", kind="not_found")
    if api == "openrouter":
        return openrouter_error(404, f"Not Found ({method} {path})")
    if api == "anthropic":
        return anthropic_error(404, f"Not found: {method} {path}")
    return openai_error(404, f"Invalid URL ({method} {path})", kind="invalid_request_error")


_CLOUDFLARE_PAGE = (
    "<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n"
    "<center><h1>{status} {reason}</h1></center>\r\n<hr><center>cloudflare</center>\r\n"
    "</body>\r\n</html>\r\n"
)
_GOOGLE_FRONT_END_PAGE = (
    "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <meta name=viewport "
    'content="initial-scale=1, minimum-scale=1, width=device-width">\n'
    "  <title>Error {status} (Server Error)!!1</title>\n"
    "  <a href=//www.google.com/><span id=logo aria-label=Google></span></a>\n"
    "  <p><b>{status}.</b> <ins>That’s an error.</ins>\n"
    "  <p>The server encountered a temporary error and could not complete your request."
    "<p>Please try again in 30 seconds.  <ins>That’s all we know.</ins>\n"
)
_REASONS = {502: "Bad Gateway", 503: "Service Temporarily Unavailable"}


def html_page(api: Api, status: int) -> Reply:
    """The HTML error page the proxy in front of each service answers with."""
    template = _GOOGLE_FRONT_END_PAGE if api in _GOOGLE_APIS else _CLOUDFLARE_PAGE
    page = template.format(status=status, reason=_REASONS.get(status, "Error"))
    return Reply(status, page.encode(), content_type="text/html; charset=UTF-8")
