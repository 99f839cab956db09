"""openai exceptions become router errors at the boundary, classified by what a retry can fix.

The exceptions are the SDK's own classes around real httpx2 responses; the wire tests show the
same translation for what the real client raises against the emulator.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from adapters.openai.errors import parse_retry_after, provider_message, translate_openai_errors
from router.errors import (
    ProviderRequestError,
    ProviderTransientError,
    ResponseParseError,
    RouterError,
)

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "openai_status_errors.json").read_text("utf-8")
)
NOW = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
REQUEST = httpx2.Request("POST", "https://api.openai.com/v1/responses")
KEY = "sk-test-abcdefghijklmnop"


def status_exception(status: int, headers: dict[str, str], body: object) -> openai.APIStatusError:
    """The exception the openai client raises for this HTTP reply (built by the client itself)."""
    content = json.dumps({"error": body}) if isinstance(body, dict) else str(body)
    response = httpx2.Response(status, headers=headers, content=content, request=REQUEST)
    client = openai.OpenAI(api_key=KEY, max_retries=0)
    try:
        error = client._make_status_error_from_response(response)
    finally:
        client.close()
    return error


def translated(exc: BaseException) -> RouterError:
    with pytest.raises(RouterError) as caught, translate_openai_errors(secret=KEY):
        raise exc
    assert caught.value.__cause__ is exc
    return caught.value


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_status_errors(row: dict[str, Any]) -> None:
    """Each HTTP error maps to its error class, reason, status and wait."""
    error = translated(status_exception(row["status"], row["headers"], row["body"]))
    assert type(error).__name__ == row["error"]
    assert (error.reason, error.status_code, error.vendor) == (
        row["reason"],
        row["status"],
        "openai",
    )
    assert getattr(error, "retry_after_s", None) == row["retry_after_s"]
    assert KEY not in error.message
    assert KEY not in (getattr(error, "provider_message", None) or "")


def test_auth_error_says_which_setting_to_check() -> None:
    """A rejected key names OPENAI_API_KEY and carries the provider's message, key redacted."""
    error = translated(
        status_exception(401, {}, {"message": f"Incorrect API key provided: {KEY}."})
    )
    assert isinstance(error, ProviderRequestError)
    assert "check OPENAI_API_KEY" in error.message
    assert error.provider_message == "Incorrect API key provided: [REDACTED]."


def test_html_page_text_is_the_message() -> None:
    """A proxy page's title and heading, tags and styles removed, are the provider message."""
    row = next(r for r in ROWS if r["id"] == "proxy-html-page")
    error = translated(status_exception(502, {}, row["body"]))
    assert isinstance(error, ProviderTransientError)
    assert error.provider_message == "502 502 Bad Gateway"


def test_timeout_and_connection_errors_are_transient() -> None:
    """Timeouts and refused or dropped connections may go through next time."""
    timeout = translated(openai.APITimeoutError(request=REQUEST))
    assert (type(timeout), timeout.reason) == (ProviderTransientError, "timeout")
    cause = httpx2.ConnectError("Connection refused")
    connection = openai.APIConnectionError(request=REQUEST)
    connection.__cause__ = cause
    error = translated(connection)
    assert (type(error), error.reason, error.provider_message) == (
        ProviderTransientError,
        "connection",
        "Connection refused",
    )
    assert "ConnectError" in error.message


def test_cut_json_is_transient() -> None:
    """A 200 whose JSON breaks off was cut in transit: retry."""
    try:
        json.loads('{"id": "resp_1", "output": [{"type": "mess')
    except json.JSONDecodeError as exc:
        error = translated(exc)
    assert (type(error), error.reason) == (ProviderTransientError, "truncated_response")


def test_text_instead_of_json_is_unusable() -> None:
    """A 200 whose body is not JSON at all is not the API; retrying does not fix it."""
    try:
        json.loads("Service temporarily unavailable, try again")
    except json.JSONDecodeError as exc:
        error = translated(exc)
    assert (type(error), error.reason) == (ResponseParseError, "non_json_response")
    assert "OPENAI_BASE_URL" in error.message
    assert "'Service temporarily" in error.message


def test_other_exceptions_pass_through() -> None:
    """Errors that are not the SDK's are not translated here."""
    with pytest.raises(KeyError), translate_openai_errors():
        raise KeyError("x")


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after": "Sat, 21 Nov 2026 12:00:10 GMT"}, 10.0),
        ({"retry-after": "Sat, 21 Nov 2026 11:59:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after-ms": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after(headers: dict[str, str], seconds: float | None) -> None:
    """Retry-After in milliseconds, seconds or as an HTTP date; nonsense is no wait."""
    assert parse_retry_after(headers, now=NOW) == seconds


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"message": "Bad  input\n here"}, "Bad input here"),
        ({"error": {"message": "nested"}}, "nested"),
        ({"code": "x"}, "fallback"),
        ("<p>plain</p>", "plain"),
        (None, "fallback"),
        ({"message": "x" * 400}, "x" * 299 + "…"),
        ({"message": "Authorization: Bearer abcdefghijklmnop"}, "Authorization: [REDACTED]"),
    ],
)
def test_provider_message(body: object, expected: str) -> None:
    """The provider's message is found, cleaned, redacted and kept short."""
    assert provider_message(body, fallback="fallback") == expected
