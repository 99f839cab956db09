"""``openai`` SDK exceptions translated into router errors, in one place, at the SDK boundary.

Every provider reached through the ``openai`` SDK (OpenAI itself, and the OpenAI-compatible
APIs of OpenRouter and Perplexity) translates its errors here; an :class:`OpenAIService` names
the vendor, the label of its messages and the settings a failure points at.

======================================  ===============================  =====================
what the SDK raised                     router error                     reason
======================================  ===============================  =====================
``RateLimitError`` (429)                ``ProviderTransientError``       ``rate_limited``
429 with code ``insufficient_quota``    ``ProviderRequestError``         ``insufficient_quota``
408 / 409                               ``ProviderTransientError``       ``timeout`` / ``conflict``
5xx (``InternalServerError``)           ``ProviderTransientError``       ``server_error``
``APITimeoutError``                     ``ProviderTransientError``       ``timeout``
``APIConnectionError``                  ``ProviderTransientError``       ``connection``
3xx (redirects are not followed)        ``ProviderRequestError``         ``redirect``
401 / 403                               ``ProviderRequestError``         ``auth``
404                                     ``ProviderRequestError``         ``not_found``
other 4xx                               ``ProviderRequestError``         ``bad_request``
``json.JSONDecodeError``, cut JSON      ``ProviderTransientError``       ``truncated_response``
``json.JSONDecodeError``, not JSON      ``ResponseParseError``           ``non_json_response``
``APIResponseValidationError``          ``ResponseParseError``           ``unparseable_response``
``APIError`` (an error inside a stream)  ``ProviderTransientError``       ``stream_error``
a reply that is not valid HTTP (async)  ``ProviderTransientError``       ``connection``
======================================  ===============================  =====================

Decided from what the real client does with the emulator's delivery faults: ``hang`` raises
``APITimeoutError`` and ``drop`` ``APIConnectionError`` (transient: a retry may get through).
On the aiohttp transport, which the async client uses, a dropped or refused connection also
arrives as ``APITimeoutError``; the aiohttp error beneath it tells the two apart.
``html`` (a proxy's 502/503 page) raises ``InternalServerError``: transient like any 5xx, with the
page's text, tags removed, as the provider message. ``truncate`` and ``non_json`` (HTTP 200) both
escape the client as a bare ``json.JSONDecodeError``; a body that starts as JSON and breaks off
was cut in transit, which the next attempt may not be, so it is transient; a 200 whose body is
not JSON at all comes from something that is not the API (a wrong ``OPENAI_BASE_URL``, a captive
portal), which retrying does not fix. A 429 for ``insufficient_quota`` is not retried either: the
quota does not come back within a retry's wait.

``Retry-After`` is read from ``retry-after-ms`` first (OpenAI's precise form), then
``retry-after`` in seconds or as an HTTP date. Messages carry the provider's own message, never
the API key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from adapters.sdk.errors import (
    ApiService,
    clean_message,
    connection_error,
    parse_retry_after,
    provider_message,
    status_error,
    undecodable_reply,
)
from adapters.sdk.malformed_http import malformed_http_error
from router.errors import (
    ProviderError,
    ProviderRequestError,
    ProviderTransientError,
    ResponseParseError,
    RouterError,
)

__all__ = [
    "OPENAI",
    "OpenAIService",
    "parse_retry_after",
    "provider_message",
    "translate_openai_errors",
]


# An API reached through the ``openai`` SDK, as its errors name it.
OpenAIService = ApiService

OPENAI = OpenAIService("openai", "OpenAI", "OPENAI_API_KEY", "OPENAI_BASE_URL")
_TRANSIENT_STATUS_REASONS = {408: "timeout", 409: "conflict", 429: "rate_limited"}
_REQUEST_STATUS_REASONS = {404: "not_found"}


@contextmanager
def translate_openai_errors(
    *, secret: str | None = None, service: OpenAIService = OPENAI
) -> Iterator[None]:
    """Run an SDK call to ``service``; its exceptions leave as router errors (``raise ... from``).

    ``secret`` (the API key in use) is removed from every message, whatever the provider echoed.
    """
    import openai

    try:
        yield
    except openai.APIStatusError as exc:
        raise _status_error(exc, secret, service) from exc
    except openai.APIConnectionError as exc:  # APITimeoutError included
        timed_out = isinstance(exc, openai.APITimeoutError)
        raise connection_error(exc, timed_out=timed_out, secret=secret, service=service) from exc
    except openai.APIResponseValidationError as exc:
        raise ResponseParseError(
            f"{service.label}: the reply does not have the shape of a response: "
            f"{clean_message(str(exc), secret)}",
            vendor=service.vendor,
        ) from exc
    except openai.APIError as exc:  # the SDK's stream met an event that carries an error
        raise ProviderTransientError(
            f"{service.label}: the stream reported an error: {clean_message(exc.message, secret)}",
            vendor=service.vendor,
            reason="stream_error",
            provider_message=clean_message(exc.message, secret),
        ) from exc
    except json.JSONDecodeError as exc:
        raise _undecodable(exc, service) from exc
    except Exception as exc:
        malformed = malformed_http_error(exc)
        if malformed is None:
            raise
        raise ProviderTransientError(
            f"{service.label}: the reply was not valid HTTP ({type(malformed).__name__}); "
            f"check the network and {service.base_url_setting}",
            vendor=service.vendor,
            reason="connection",
        ) from exc


def _status_error(exc: Any, secret: str | None, service: OpenAIService) -> ProviderError:
    if exc.status_code == 429 and getattr(exc, "code", None) == "insufficient_quota":
        message = provider_message(exc.body, fallback=exc.message, secret=secret)
        said = f": {message}" if message else ""
        return ProviderRequestError(
            f"{service.label}: the account's quota is used up (HTTP 429){said}",
            vendor=service.vendor,
            status_code=429,
            reason="insufficient_quota",
            provider_message=message,
        )
    return status_error(
        exc,
        secret=secret,
        service=service,
        transient_reasons=_TRANSIENT_STATUS_REASONS,
        request_reasons=_REQUEST_STATUS_REASONS,
    )


def _undecodable(exc: json.JSONDecodeError, service: OpenAIService) -> RouterError:
    return undecodable_reply(
        exc,
        vendor=service.vendor,
        label=service.label,
        base_url_setting=service.base_url_setting,
        expected_api="an OpenAI-compatible API",
    )
