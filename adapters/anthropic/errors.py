"""``anthropic`` exceptions translated into router errors, in one place, at the SDK boundary.

======================================  ===============================  =====================
what the SDK raised                     router error                     reason
======================================  ===============================  =====================
``RateLimitError`` (429)                ``ProviderTransientError``       ``rate_limited``
``OverloadedError`` (529)               ``ProviderTransientError``       ``overloaded``
other 5xx (``InternalServerError``)     ``ProviderTransientError``       ``server_error``
408 / 409                               ``ProviderTransientError``       ``timeout`` / ``conflict``
``APITimeoutError``                     ``ProviderTransientError``       ``timeout``
``APIConnectionError``                  ``ProviderTransientError``       ``connection``
3xx (redirects are not followed)        ``ProviderRequestError``         ``redirect``
401 / 403                               ``ProviderRequestError``         ``auth``
404                                     ``ProviderRequestError``         ``not_found``
413                                     ``ProviderRequestError``         ``request_too_large``
other 4xx                               ``ProviderRequestError``         ``bad_request``
``json.JSONDecodeError``, cut JSON      ``ProviderTransientError``       ``truncated_response``
``json.JSONDecodeError``, not JSON      ``ResponseParseError``           ``non_json_response``
``UnicodeDecodeError``, cut character   ``ProviderTransientError``       ``truncated_response``
``UnicodeDecodeError``, other bytes     ``ResponseParseError``           ``non_json_response``
``APIResponseValidationError``          ``ResponseParseError``           ``unparseable_response``
======================================  ===============================  =====================

The API's error body is ``{"type": "error", "error": {"type", "message"}, "request_id"}``; its
``message`` becomes the provider message (tags out, secrets redacted, cut). ``529
overloaded_error`` is Anthropic's own status for a service at capacity: transient, like a 503.
``Retry-After`` (``retry-after-ms`` first, then seconds or an HTTP date) gives
``retry_after_s``. As with the OpenAI SDK, the async client's aiohttp transport reports a
dropped or refused connection as a timeout; the aiohttp error beneath tells the two apart. A
body cut inside a multi-byte character (Claude's answers carry typographic characters) fails
the SDK's UTF-8 decoding before its JSON parse: that is a truncation too.
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
    status_error,
    undecodable_reply,
)
from router.errors import (
    ProviderError,
    ProviderTransientError,
    ResponseParseError,
)

__all__ = ["ANTHROPIC", "BASE_URL_SETTING", "KEY_SETTING", "translate_anthropic_errors"]

KEY_SETTING = "ANTHROPIC_API_KEY"
BASE_URL_SETTING = "ANTHROPIC_BASE_URL"
ANTHROPIC = ApiService("anthropic", "Anthropic", KEY_SETTING, BASE_URL_SETTING)
_TRANSIENT_STATUS_REASONS = {
    408: "timeout",
    409: "conflict",
    429: "rate_limited",
    529: "overloaded",
}
_REQUEST_STATUS_REASONS = {404: "not_found", 413: "request_too_large"}


@contextmanager
def translate_anthropic_errors(*, secret: str | None = None) -> Iterator[None]:
    """Run an SDK call; its exceptions leave as router errors (``raise ... from``).

    ``secret`` (the API key in use) is removed from every message, whatever the provider echoed.
    """
    import anthropic

    try:
        yield
    except anthropic.APIStatusError as exc:
        raise _status_error(exc, secret) from exc
    except anthropic.APIConnectionError as exc:  # APITimeoutError included
        timed_out = isinstance(exc, anthropic.APITimeoutError)
        raise connection_error(exc, timed_out=timed_out, secret=secret, service=ANTHROPIC) from exc
    except anthropic.APIResponseValidationError as exc:
        raise ResponseParseError(
            "Anthropic: the reply does not have the shape of a message: "
            f"{clean_message(str(exc), secret)}",
            vendor="anthropic",
        ) from exc
    except UnicodeDecodeError as exc:
        raise _not_utf8(exc) from exc
    except json.JSONDecodeError as exc:
        raise undecodable_reply(
            exc,
            vendor="anthropic",
            label="Anthropic",
            base_url_setting=BASE_URL_SETTING,
            expected_api="the Anthropic Messages API",
        ) from exc


def _not_utf8(exc: UnicodeDecodeError) -> ProviderTransientError | ResponseParseError:
    """A 200 body that is not UTF-8: cut inside a character (transient), or not text at all."""
    if exc.reason == "unexpected end of data":
        return ProviderTransientError(
            f"Anthropic: the reply was cut off inside a UTF-8 character (byte {exc.start} "
            f"of {len(exc.object)})",
            vendor="anthropic",
            reason="truncated_response",
        )
    return ResponseParseError(
        f"Anthropic: the reply is not UTF-8 text ({exc.reason} at byte {exc.start}); "
        f"check that {BASE_URL_SETTING} points at the Anthropic Messages API",
        vendor="anthropic",
        reason="non_json_response",
    )


def _status_error(exc: Any, secret: str | None) -> ProviderError:
    return status_error(
        exc,
        secret=secret,
        service=ANTHROPIC,
        transient_reasons=_TRANSIENT_STATUS_REASONS,
        request_reasons=_REQUEST_STATUS_REASONS,
    )
