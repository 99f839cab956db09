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
from datetime import UTC, datetime

from router.errors import ProviderTransientError, ResponseParseError, RouterError
from router.logging import REDACTED, redact_text, redacted_prefix
from router.types import Vendor

__all__ = [
    "clean_message",
    "dropped_connection",
    "error_chain",
    "parse_retry_after",
    "provider_message",
    "undecodable_reply",
]

_MESSAGE_LIMIT = 300
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
