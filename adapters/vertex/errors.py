"""The one place where google-genai and transport errors become router errors.

``translated_errors()`` wraps every SDK call (sync or async: exceptions cross an ``await``
unchanged) and re-raises what it recognises as a router error, ``raise ... from exc``:

=============================================  =================================================
raised inside the SDK call                     router error (``reason``)
=============================================  =================================================
``genai.errors.APIError`` 429                  ProviderTransientError ("rate_limited")
``APIError`` 408 / 409                         ProviderTransientError ("timeout" / "conflict")
``APIError`` 5xx (also a proxy's HTML page)    ProviderTransientError ("server_error")
``APIError`` 3xx (redirects are not followed)  ProviderRequestError ("redirect")
``APIError`` 401 / 403, 400 API_KEY_INVALID    ProviderRequestError ("auth"), names the settings
``APIError`` 404 / other 4xx                   ProviderRequestError ("not_found" / "bad_request")
transport timeout (httpx2, httpx, aiohttp)     ProviderTransientError ("timeout")
connection refused / dropped / reset           ProviderTransientError ("connection")
a reply that is not valid HTTP (aiohttp)       ProviderTransientError ("connection")
a 200 body cut off mid-JSON                    ProviderTransientError ("truncated_response")
a 200 body that is not JSON at all             ResponseParseError ("non_json_response")
a 200 body the SDK cannot read as a response   ResponseParseError ("unparseable_response")
no Application Default Credentials             ConfigurationError ("credentials")
token refresh refused                          ConfigurationError ("credentials")
=============================================  =================================================

Both APIs of this package (:mod:`apis`) go through the same table; messages and the error's
``vendor`` name the API the call went to. One difference is in the table's data: the Gemini
Developer API answers a bad API key with HTTP 400 ``INVALID_ARGUMENT`` whose ``ErrorInfo``
reason is ``API_KEY_INVALID`` (and a missing one with 403 ``PERMISSION_DENIED``), so a 400
with that reason is an ``auth`` error like a 401 rather than a bad request. The credential
errors of Application Default Credentials concern Vertex AI only.

How the faults reach us (checked with the real SDK against the loopback emulator): a body
cut mid-JSON surfaces as ``genai.errors.UnknownApiResponseError`` whose cause is a
``JSONDecodeError`` on text that starts like JSON (or, when the length header promised more,
as the transport's error for an incomplete body): the transfer broke, and a retry may well succeed,
so it is transient. Text where JSON belongs (``UnknownApiResponseError`` on text that is not
JSON) is a reply that cannot be used and that repeating the same request will not fix: a
``ResponseParseError``. A proxy's HTML error page comes with its 502/503 status, so the SDK
raises ``ServerError`` and it is transient like any 5xx. google-genai validates every reply into
its pydantic types: a field of the wrong type or shape (a string where a number belongs, a number
where a list belongs) raises a ``ValidationError``, ``TypeError`` or ``AttributeError`` inside its
reply converters (``_from_response``, ``*_from_vertex``), which is a reply that cannot be used.

google-genai lets raw transport exceptions through: ``httpx2`` for sync calls (``httpx`` when
``GOOGLE_GENAI_HTTP_CLIENT=httpx``), and ``aiohttp`` for async calls (the adapter's own session,
see ``clients``). All are recognised; their classes are imported lazily.
``Retry-After`` (seconds or an HTTP date), ``retry-after-ms`` and Google's
``RetryInfo.retryDelay`` give ``retry_after_s``. Messages carry the provider's message, cut to
a readable length, and never a credential (provider text goes through the log redaction).
"""

from __future__ import annotations

import email.utils
import importlib
import json
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from adapters.sdk.http_clients import redirect_target
from adapters.sdk.malformed_http import malformed_http_error
from adapters.vertex.apis import VERTEX, GoogleApi
from router.errors import (
    ConfigurationError,
    ProviderRequestError,
    ProviderTransientError,
    ResponseParseError,
    RouterError,
)
from router.logging import redact_text, redacted_prefix

__all__ = ["CREDENTIALS_HELP", "translate_error", "translated_errors"]

CREDENTIALS_HELP = (
    "provide credentials with `gcloud auth application-default login`, "
    "GOOGLE_APPLICATION_CREDENTIALS (a service-account key file), or "
    "GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN (a ready OAuth access token)"
)
_API_KEY_INVALID = "API_KEY_INVALID"
_MESSAGE_LIMIT = 300
_WHITESPACE = re.compile(r"\s+")
_TAGS = re.compile(r"<[^>]{0,200}>")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_TRANSIENT_REASONS = {429: "rate_limited", 408: "timeout", 409: "conflict"}
# Warning too: google-genai warns about enum values it does not know, and an application that
# turns warnings into errors gets them raised from inside the reply converters.
_SHAPE_ERRORS = (ValueError, TypeError, AttributeError, KeyError, IndexError, Warning)


def _readable(message: object) -> str | None:
    """A provider message fit for an error: tags dropped, whitespace folded, secrets removed
    (a provider or proxy may quote the credential back), length capped."""
    if not isinstance(message, str) or not message.strip():
        return None
    folded = redact_text(_WHITESPACE.sub(" ", _TAGS.sub(" ", message)).strip())
    return folded if len(folded) <= _MESSAGE_LIMIT else folded[: _MESSAGE_LIMIT - 1] + "…"


def _seconds(value: str) -> float | None:
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _retry_after_s(headers: object, details: object) -> float | None:
    """Seconds to wait before retrying, from the reply's headers or Google's RetryInfo."""
    get = getattr(headers, "get", None)
    if callable(get):
        milliseconds = get("retry-after-ms")
        if isinstance(milliseconds, str):
            try:
                return max(0.0, float(milliseconds) / 1000.0)
            except ValueError:
                pass
        retry_after = get("retry-after")
        if isinstance(retry_after, str):
            seconds = _seconds(retry_after.strip())
            if seconds is not None:
                return seconds
    error = details.get("error", details) if isinstance(details, Mapping) else None
    for detail in error.get("details", []) if isinstance(error, Mapping) else []:
        delay = detail.get("retryDelay") if isinstance(detail, Mapping) else None
        match = _DURATION.match(delay) if isinstance(delay, str) else None
        if match:
            return float(match.group(1))
    return None


@lru_cache(maxsize=1)
def _transport_classes() -> dict[str, tuple[type[BaseException], ...]]:
    """Transport exception classes of the HTTP stacks google-genai may use (those installed)."""
    timeouts: list[type[BaseException]] = [TimeoutError]
    connection: list[type[BaseException]] = [ConnectionError]
    unsupported: list[type[BaseException]] = []
    truncated: list[type[BaseException]] = []
    for name in ("httpx2", "httpx"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        timeouts.append(module.TimeoutException)
        unsupported.append(module.UnsupportedProtocol)
        connection.append(module.TransportError)
    try:
        import aiohttp
    except ImportError:
        pass
    else:
        timeouts.append(aiohttp.ServerTimeoutError)
        truncated.append(aiohttp.ClientPayloadError)
        connection.append(aiohttp.ClientConnectionError)
    return {
        "timeout": tuple(timeouts),
        "unsupported": tuple(unsupported),
        "truncated": tuple(truncated),
        "connection": tuple(connection),
    }


def _error_reasons(details: object) -> set[str]:
    """The ``ErrorInfo`` reasons of a Google error body (``API_KEY_INVALID``, ...)."""
    error = details.get("error", details) if isinstance(details, Mapping) else None
    found = error.get("details") if isinstance(error, Mapping) else None
    return {
        detail["reason"]
        for detail in (found if isinstance(found, list) else ())
        if isinstance(detail, Mapping) and isinstance(detail.get("reason"), str)
    }


def _from_api_error(exc: Any, api: GoogleApi) -> RouterError:
    code = exc.code if isinstance(exc.code, int) else None
    status = exc.status if isinstance(exc.status, str) else None
    provider_message = _readable(exc.message)
    said = f"{code or '?'}{f' {status}' if status else ''}"
    detail = f": {provider_message}" if provider_message else ""
    context: dict[str, Any] = {
        "vendor": api.vendor,
        "status_code": code,
        "provider_message": provider_message,
    }
    if code is not None and 300 <= code < 400:
        headers = getattr(getattr(exc, "response", None), "headers", None)
        return ProviderRequestError(
            f"{api.label} answered with a redirect ({said}{redirect_target(headers)}); provider "
            "calls follow no redirect, which would send the prompt to another host: check "
            f"{api.base_url_setting}",
            reason="redirect",
            **context,
        )
    if code is not None and (code in _TRANSIENT_REASONS or code >= 500):
        headers = getattr(getattr(exc, "response", None), "headers", None)
        return ProviderTransientError(
            f"{api.label} answered {said}{detail}",
            reason=_TRANSIENT_REASONS.get(code, "server_error"),
            retry_after_s=_retry_after_s(headers, getattr(exc, "details", None)),
            **context,
        )
    if code in (401, 403) or _API_KEY_INVALID in _error_reasons(getattr(exc, "details", None)):
        return ProviderRequestError(
            f"{api.label} refused the credentials ({said}){detail}; {api.auth_help}",
            reason="auth",
            **context,
        )
    reason = "not_found" if code == 404 else "bad_request"
    hint = f" ({api.not_found_hint})" if code == 404 else ""
    return ProviderRequestError(
        f"{api.label} rejected the request ({said}){hint}{detail}", reason=reason, **context
    )


def _from_undecodable_body(exc: BaseException, api: GoogleApi) -> RouterError:
    """A 200 reply the SDK could not decode: cut-off JSON is transient, non-JSON is not."""
    cause = exc if isinstance(exc, json.JSONDecodeError) else exc.__cause__
    body, where = "", ""
    if isinstance(cause, json.JSONDecodeError):
        body, where = cause.doc, f" at character {cause.pos}"
    body = body.lstrip()
    start = redacted_prefix(body, 40)  # shown; the body itself decides what kind of reply it was
    if body.startswith(("{", "[")):
        return ProviderTransientError(
            f"{api.label}'s reply was cut off: invalid JSON{where} of {len(body)} characters "
            f"starting {start!r}",
            vendor=api.vendor,
            status_code=200,
            reason="truncated_response",
        )
    return ResponseParseError(
        f"{api.label} answered with something that is not JSON{where}, starting {start!r}",
        vendor=api.vendor,
        status_code=200,
        reason="non_json_response",
    )


def _raised_reading_reply(exc: BaseException) -> bool:
    """Whether google-genai raised ``exc`` in one of its reply converters."""
    trace = exc.__traceback__
    while trace is not None:
        name = trace.tb_frame.f_code.co_name
        if name == "_from_response" or name.endswith(("_from_vertex", "_from_mldev")):
            return True
        trace = trace.tb_next
    return False


def _unreadable_reply(exc: BaseException, api: GoogleApi) -> ResponseParseError:
    detail = _readable(str(exc).partition("\n")[0]) or type(exc).__name__
    return ResponseParseError(
        f"{api.label}'s reply does not have the shape of a response "
        f"({type(exc).__name__}: {detail})",
        vendor=api.vendor,
        status_code=200,
        reason="unparseable_response",
    )


def translate_error(exc: BaseException, api: GoogleApi = VERTEX) -> RouterError | None:
    """The router error for an exception raised inside a google-genai call to ``api``, or None."""
    from google.auth import exceptions as auth_errors
    from google.genai import errors as genai_errors

    if isinstance(exc, genai_errors.APIError):
        return _from_api_error(exc, api)
    if isinstance(exc, genai_errors.UnknownApiResponseError | json.JSONDecodeError):
        return _from_undecodable_body(exc, api)
    if isinstance(exc, _SHAPE_ERRORS) and _raised_reading_reply(exc):
        return _unreadable_reply(exc, api)
    if isinstance(exc, auth_errors.DefaultCredentialsError):
        return ConfigurationError(
            f"Vertex AI found no Google credentials: {CREDENTIALS_HELP}",
            setting="GOOGLE_APPLICATION_CREDENTIALS",
            vendor="vertex",
            reason="credentials",
        )
    if isinstance(exc, auth_errors.RefreshError):
        return ConfigurationError(
            f"Vertex AI could not refresh the Google credentials ({_readable(str(exc))}): "
            f"{CREDENTIALS_HELP}",
            setting="GOOGLE_APPLICATION_CREDENTIALS",
            vendor="vertex",
            reason="credentials",
        )
    malformed = malformed_http_error(exc)
    if malformed is not None:
        return ProviderTransientError(
            f"Vertex AI's reply was not valid HTTP ({type(malformed).__name__})",
            vendor="vertex",
            reason="connection",
        )
    transport = _transport_classes()
    kind = type(exc).__name__
    if isinstance(exc, transport["unsupported"]):
        return ConfigurationError(
            f"{api.label} endpoint is not an http(s) URL ({kind}): check {api.base_url_setting}",
            setting=api.base_url_setting,
            vendor=api.vendor,
        )
    if isinstance(exc, transport["timeout"]):
        return ProviderTransientError(
            f"{api.label} did not answer in time ({kind})", vendor=api.vendor, reason="timeout"
        )
    if isinstance(exc, transport["truncated"]):
        return ProviderTransientError(
            f"{api.label}'s reply broke off ({kind})",
            vendor=api.vendor,
            reason="truncated_response",
        )
    if isinstance(exc, (*transport["connection"], auth_errors.TransportError)):
        return ProviderTransientError(
            f"{api.label} could not be reached ({kind})", vendor=api.vendor, reason="connection"
        )
    return None


@contextmanager
def translated_errors(api: GoogleApi = VERTEX) -> Iterator[None]:
    """Re-raise SDK and transport errors of the block as router errors (``from`` the cause)."""
    try:
        yield
    except RouterError:
        raise
    except Exception as exc:
        error = translate_error(exc, api)
        if error is None:
            raise
        raise error from exc
