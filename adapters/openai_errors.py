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

import email.utils
import json
import math
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adapters.http_clients import redirect_target
from adapters.malformed_http import malformed_http_error
from router.errors import (
    ProviderError,
    ProviderRequestError,
    ProviderTransientError,
    ResponseParseError,
    RouterError,
)
from router.logging import REDACTED, redact_text, redacted_prefix
from router.types import Vendor

__all__ = [
    "OPENAI",
    "OpenAIService",
    "parse_retry_after",
    "provider_message",
    "translate_openai_errors",
]


@dataclass(frozen=True, slots=True)
class OpenAIService:
    """An API reached through the ``openai`` SDK, as its errors name it."""

    vendor: Vendor
    label: str
    key_setting: str
    base_url_setting: str


OPENAI = OpenAIService("openai", "OpenAI", "OPENAI_API_KEY", "OPENAI_BASE_URL")
_MESSAGE_LIMIT = 300
_TAG = re.compile(r"<(script|style)\b.*?</\1>|<[^>]*>", re.IGNORECASE | re.DOTALL)
_TRANSIENT_STATUS_REASONS = {408: "timeout", 409: "conflict", 429: "rate_limited"}


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
        chain = _causes(exc)
        dropped = _dropped_connection(chain)
        if isinstance(exc, openai.APITimeoutError) and dropped is None:
            raise ProviderTransientError(
                f"{service.label}: the call timed out before a reply arrived",
                vendor=service.vendor,
                reason="timeout",
            ) from exc
        cause = dropped or exc.__cause__ or exc
        raise ProviderTransientError(
            f"{service.label}: could not reach the API ({type(cause).__name__}); "
            f"check the network and {service.base_url_setting}",
            vendor=service.vendor,
            reason="connection",
            provider_message=_clean(str(cause), secret),
        ) from exc
    except openai.APIResponseValidationError as exc:
        raise ResponseParseError(
            f"{service.label}: the reply does not have the shape of a response: "
            f"{_clean(str(exc), secret)}",
            vendor=service.vendor,
        ) from exc
    except openai.APIError as exc:  # the SDK's stream met an event that carries an error
        raise ProviderTransientError(
            f"{service.label}: the stream reported an error: {_clean(exc.message, secret)}",
            vendor=service.vendor,
            reason="stream_error",
            provider_message=_clean(exc.message, secret),
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


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from, outermost first."""
    chain = [exc]
    while (cause := chain[-1].__cause__) is not None and cause not in chain:
        chain.append(cause)
    return chain


def _dropped_connection(chain: list[BaseException]) -> BaseException | None:
    """The aiohttp error of a connection refused or dropped, which its transport calls a timeout.

    The SDK's aiohttp transport maps every ``aiohttp.ClientConnectionError`` to a connect
    timeout, so a closed or refused connection would otherwise read as a slow provider.
    """
    aiohttp = sys.modules.get("aiohttp")
    if aiohttp is None:
        return None
    connection_error: type[BaseException] = aiohttp.ClientConnectionError
    for cause in chain:
        if isinstance(cause, connection_error) and not isinstance(cause, TimeoutError):
            return cause
    return None


def _status_error(exc: Any, secret: str | None, service: OpenAIService) -> ProviderError:
    status: int = exc.status_code
    message = provider_message(exc.body, fallback=exc.message, secret=secret)
    code = getattr(exc, "code", None)
    said = f": {message}" if message else ""
    if 300 <= status < 400:
        return ProviderRequestError(
            f"{service.label} answered with a redirect (HTTP {status}"
            f"{redirect_target(exc.response.headers)}); provider calls follow no redirect, which "
            f"would send the prompt to another host: check {service.base_url_setting}",
            vendor=service.vendor,
            status_code=status,
            reason="redirect",
            provider_message=message,
        )
    if status == 429 and code == "insufficient_quota":
        return ProviderRequestError(
            f"{service.label}: the account's quota is used up (HTTP 429){said}",
            vendor=service.vendor,
            status_code=status,
            reason="insufficient_quota",
            provider_message=message,
        )
    if status in _TRANSIENT_STATUS_REASONS or status >= 500:
        reason = _TRANSIENT_STATUS_REASONS.get(status, "server_error")
        retry_after = parse_retry_after(exc.response.headers)
        wait = f", retry after {retry_after:g} s" if retry_after is not None else ""
        return ProviderTransientError(
            f"{service.label}: {reason.replace('_', ' ')} (HTTP {status}{wait}){said}",
            vendor=service.vendor,
            status_code=status,
            reason=reason,
            retry_after_s=retry_after,
            provider_message=message,
        )
    if status in (401, 403):
        return ProviderRequestError(
            f"{service.label} rejected the credentials (HTTP {status}): check "
            f"{service.key_setting} (and {service.base_url_setting} when calling through a "
            f"proxy){said}",
            vendor=service.vendor,
            status_code=status,
            reason="auth",
            provider_message=message,
        )
    reason = "not_found" if status == 404 else "bad_request"
    hint = f"; check the model name and {service.base_url_setting}" if status == 404 else ""
    return ProviderRequestError(
        f"{service.label} rejected the request (HTTP {status}){said}{hint}",
        vendor=service.vendor,
        status_code=status,
        reason=reason,
        provider_message=message,
    )


def _undecodable(exc: json.JSONDecodeError, service: OpenAIService) -> RouterError:
    body = exc.doc.lstrip() if isinstance(exc.doc, str) else ""
    shown = redacted_prefix(body, 60)
    if body.startswith(("{", "[")):
        return ProviderTransientError(
            f"{service.label}: the reply was cut off mid-JSON ({exc.msg} at char {exc.pos} "
            f"of {len(exc.doc)})",
            vendor=service.vendor,
            reason="truncated_response",
        )
    return ResponseParseError(
        f"{service.label}: the reply is not JSON (it starts with {shown!r}); "
        f"check that {service.base_url_setting} points at an OpenAI-compatible API",
        vendor=service.vendor,
        reason="non_json_response",
    )


def provider_message(body: object, *, fallback: str = "", secret: str | None = None) -> str | None:
    """The provider's own message from an error body (JSON ``message`` or a page's text)."""
    if isinstance(body, Mapping):
        nested = body.get("error")
        found = body.get("message")
        if found is None and isinstance(nested, Mapping):
            found = nested.get("message")
        text = found if isinstance(found, str) else fallback
    elif isinstance(body, str):
        text = body
    else:
        text = fallback
    cleaned = _clean(text, secret)
    return cleaned or None


def _clean(text: str, secret: str | None) -> str:
    """Tags out, whitespace collapsed, secrets redacted, cut to a readable length."""
    if "<" in text:
        text = _TAG.sub(" ", text)
    text = " ".join(text.split())
    if secret:
        text = text.replace(secret, REDACTED)
    text = redact_text(text)
    if len(text) > _MESSAGE_LIMIT:
        text = text[: _MESSAGE_LIMIT - 1].rstrip() + "…"
    return text


def parse_retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    milliseconds = _number(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None
