"""Error-translation pieces shared by the adapters whose SDKs share one design (openai, anthropic).

Both SDKs raise ``APIStatusError`` with the parsed error body and the HTTP response,
``APIConnectionError`` / ``APITimeoutError`` for transport failures, and let a bare
``json.JSONDecodeError`` escape when a 200 body is not JSON. What differs per provider (which
statuses are transient, the wording, the setting names) stays in each provider's ``errors``.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adapters.sdk.http_clients import redirect_target
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
    "ApiService",
    "clean_message",
    "connection_error",
    "dropped_connection",
    "error_chain",
    "parse_retry_after",
    "provider_message",
    "status_error",
    "undecodable_reply",
    "unreadable_body",
]

_MESSAGE_LIMIT = 300


@dataclass(frozen=True, slots=True)
class ApiService:
    """An API as its errors name it: the vendor, the label of its messages, and the settings a
    failure points at."""

    vendor: Vendor
    label: str
    key_setting: str
    base_url_setting: str


_TAG = re.compile(r"<(script|style)\b.*?</\1>|<[^>]*>", re.IGNORECASE | re.DOTALL)


def error_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from, outermost first."""
    chain = [exc]
    while (cause := chain[-1].__cause__) is not None and cause not in chain:
        chain.append(cause)
    return chain


def dropped_connection(chain: list[BaseException]) -> BaseException | None:
    """The aiohttp error of a connection refused or dropped, which its transport calls a timeout.

    The SDKs' aiohttp transport maps every ``aiohttp.ClientConnectionError`` to a connect
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


def connection_error(
    exc: BaseException, *, timed_out: bool, secret: str | None, service: ApiService
) -> ProviderTransientError:
    """An SDK's connection error as the router's: ``timeout`` when the SDK says it timed out and
    nothing beneath says the connection was dropped or refused, else ``connection``."""
    dropped = dropped_connection(error_chain(exc))
    if timed_out and dropped is None:
        return ProviderTransientError(
            f"{service.label}: the call timed out before a reply arrived",
            vendor=service.vendor,
            reason="timeout",
        )
    cause = dropped or exc.__cause__ or exc
    return ProviderTransientError(
        f"{service.label}: could not reach the API ({type(cause).__name__}); "
        f"check the network and {service.base_url_setting}",
        vendor=service.vendor,
        reason="connection",
        provider_message=clean_message(str(cause), secret),
    )


def unreadable_body(
    exc: BaseException, *, vendor: Vendor | None = None, label: str = "the provider"
) -> RouterError | None:
    """The router error of a reply whose bytes a parser could not read, or None.

    SDKs let these escape raw when they decode a body: a reply cut inside a UTF-8 character
    (``UnicodeDecodeError`` at the end of the data: the connection was cut, so transient), bytes
    that are not UTF-8, JSON nested deeper than Python's parser goes (``RecursionError``), or an
    integer past Python's digit limit (``ValueError``): the reply cannot be used
    (``ResponseParseError``). Anything else gives None.
    """
    for cause in error_chain(exc):
        if isinstance(cause, UnicodeDecodeError):
            if cause.reason == "unexpected end of data":
                return ProviderTransientError(
                    f"{label}: the reply was cut off inside a UTF-8 character (byte "
                    f"{cause.start} of {len(cause.object)})",
                    vendor=vendor,
                    reason="truncated_response",
                )
            return ResponseParseError(
                f"{label}: the reply is not UTF-8 text ({cause.reason} at byte {cause.start})",
                vendor=vendor,
                reason="non_json_response",
            )
        if isinstance(cause, RecursionError):
            return ResponseParseError(
                f"{label}: the reply is nested deeper than it can be read",
                vendor=vendor,
                reason="too_deep",
            )
        if isinstance(cause, ValueError) and "integer string conversion" in str(cause):
            return ResponseParseError(
                f"{label}: the reply holds an integer with more digits than can be read",
                vendor=vendor,
                reason="integer_too_large",
            )
    return None


def undecodable_reply(
    exc: json.JSONDecodeError,
    *,
    vendor: Vendor,
    label: str,
    base_url_setting: str,
    expected_api: str,
) -> RouterError:
    """A 200 whose body did not parse: cut off mid-JSON (transient) or not JSON at all."""
    body = exc.doc.lstrip() if isinstance(exc.doc, str) else ""
    shown = redacted_prefix(body, 60)
    if body.startswith(("{", "[")):
        return ProviderTransientError(
            f"{label}: the reply was cut off mid-JSON ({exc.msg} at char {exc.pos} "
            f"of {len(exc.doc)})",
            vendor=vendor,
            reason="truncated_response",
        )
    return ResponseParseError(
        f"{label}: the reply is not JSON (it starts with {shown!r}); "
        f"check that {base_url_setting} points at {expected_api}",
        vendor=vendor,
        reason="non_json_response",
    )


def status_error(
    exc: Any,
    *,
    secret: str | None,
    service: ApiService,
    transient_reasons: Mapping[int, str],
    request_reasons: Mapping[int, str],
) -> ProviderError:
    """The router error of an ``APIStatusError`` (HTTP status ``exc.status_code``).

    A redirect is reported, never followed (it would send the prompt to another host); a
    status of ``transient_reasons`` or any 5xx is transient, with the wait ``Retry-After``
    asks for; 401 and 403 point at the key setting; other statuses are request errors with the
    reason ``request_reasons`` gives them (else ``bad_request``).
    """
    status: int = exc.status_code
    message = provider_message(exc.body, fallback=exc.message, secret=secret)
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
    if status in transient_reasons or status >= 500:
        reason = transient_reasons.get(status, "server_error")
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
    reason = request_reasons.get(status, "bad_request")
    hint = f"; check the model name and {service.base_url_setting}" if status == 404 else ""
    return ProviderRequestError(
        f"{service.label} rejected the request (HTTP {status}){said}{hint}",
        vendor=service.vendor,
        status_code=status,
        reason=reason,
        provider_message=message,
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
    cleaned = clean_message(text, secret)
    return cleaned or None


def clean_message(text: str, secret: str | None) -> str:
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
