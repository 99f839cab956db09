"""SDK and transport errors become router errors at the boundary, in one place.

API errors are built by the SDK's own ``APIError.raise_error`` from the rows of
tests/data/vertex_errors.json; transport errors are instances of the real exception classes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import pytest
from google.auth import exceptions as auth_errors
from google.genai import errors as genai_errors

from adapters.vertex.apis import GEMINI
from adapters.vertex.errors import CREDENTIALS_HELP, translate_error, translated_errors
from router.errors import (
    ConfigurationError,
    ProviderRequestError,
    ProviderTransientError,
    ResponseParseError,
    RouterError,
)

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "vertex_errors.json").read_text("utf-8")
)


def _api_error(row: dict[str, Any]) -> genai_errors.APIError:
    response = httpx2.Response(row["status"], headers=row["headers"], json=row["body"])
    try:
        genai_errors.APIError.raise_error(row["status"], row["body"], response)
    except genai_errors.APIError as exc:
        return exc
    raise AssertionError("raise_error did not raise")


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_api_errors(row: dict[str, Any]) -> None:
    """Each status becomes the error class and reason the row expects, with its status code."""
    error = translate_error(_api_error(row))
    expected = row["expected"]
    assert type(error).__name__ == expected["error"]
    assert isinstance(error, ProviderTransientError | ProviderRequestError)
    assert (error.reason, error.status_code, error.vendor) == (
        expected["reason"],
        row["status"],
        "vertex",
    )
    assert error.provider_message == row["body"]["error"]["message"]
    if "retry_after_s" in expected:
        assert isinstance(error, ProviderTransientError)
        assert error.retry_after_s == expected["retry_after_s"]


def test_auth_error_names_the_settings_to_check() -> None:
    """A 401 says which settings hold the credentials and the project."""
    row = next(row for row in ROWS if row["id"] == "401")
    message = str(translate_error(_api_error(row)))
    assert "GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN" in message
    assert "GOOGLE_CLOUD_PROJECT" in message


def test_html_error_page_is_cut_to_readable_text() -> None:
    """A proxy's HTML page becomes a short message without tags."""
    page = "<html><body>" + "<p>Error 502. That's an error.</p>" * 40 + "</body></html>"
    response = httpx2.Response(502, text=page, headers={"content-type": "text/html"})
    error = translate_error(genai_errors.ServerError(502, {"message": page}, response))
    assert isinstance(error, ProviderTransientError)
    assert error.provider_message is not None
    assert "<" not in error.provider_message
    assert len(error.provider_message) <= 300


def _undecodable(text: str) -> genai_errors.UnknownApiResponseError:
    try:
        json.loads(text)
    except json.JSONDecodeError as decode_error:
        try:
            raise genai_errors.UnknownApiResponseError("Failed to parse") from decode_error
        except genai_errors.UnknownApiResponseError as exc:
            return exc
    raise AssertionError(f"{text!r} parsed")


def test_body_cut_mid_json_is_transient() -> None:
    """A 200 body that breaks off inside JSON may come whole next time: transient."""
    error = translate_error(_undecodable('{"candidates": [{"content": {"ro'))
    assert isinstance(error, ProviderTransientError)
    assert error.reason == "truncated_response"


def test_body_that_is_not_json_is_a_parse_error() -> None:
    """A 200 body of plain text cannot be used and a retry will not fix it."""
    error = translate_error(_undecodable("upstream connect error or disconnect/reset"))
    assert isinstance(error, ResponseParseError)
    assert error.reason == "non_json_response"
    assert "upstream connect error" in str(error)


_REQUEST = httpx2.Request("POST", "http://127.0.0.1/v1beta1/x")

TRANSPORT_CASES: list[tuple[str, Callable[[], BaseException], type[RouterError], str | None]] = [
    (
        "httpx2_read_timeout",
        lambda: httpx2.ReadTimeout("t", request=_REQUEST),
        ProviderTransientError,
        "timeout",
    ),
    (
        "httpx2_connect_timeout",
        lambda: httpx2.ConnectTimeout("t", request=_REQUEST),
        ProviderTransientError,
        "timeout",
    ),
    (
        "httpx2_connect_error",
        lambda: httpx2.ConnectError("refused", request=_REQUEST),
        ProviderTransientError,
        "connection",
    ),
    (
        "httpx2_dropped",
        lambda: httpx2.RemoteProtocolError("closed", request=_REQUEST),
        ProviderTransientError,
        "connection",
    ),
    (
        "httpx2_bad_scheme",
        lambda: httpx2.UnsupportedProtocol("ftp", request=_REQUEST),
        ConfigurationError,
        "configuration",
    ),
    ("aiohttp_timeout", lambda: aiohttp.ServerTimeoutError("t"), ProviderTransientError, "timeout"),
    ("aiohttp_total_timeout", TimeoutError, ProviderTransientError, "timeout"),
    ("aiohttp_disconnected", aiohttp.ServerDisconnectedError, ProviderTransientError, "connection"),
    (
        "aiohttp_short_body",
        lambda: aiohttp.ClientPayloadError("short"),
        ProviderTransientError,
        "truncated_response",
    ),
    (
        "auth_transport",
        lambda: auth_errors.TransportError("dns"),
        ProviderTransientError,
        "connection",
    ),
    (
        "no_adc",
        lambda: auth_errors.DefaultCredentialsError("none"),
        ConfigurationError,
        "credentials",
    ),
    (
        "refresh_refused",
        lambda: auth_errors.RefreshError("invalid_grant"),
        ConfigurationError,
        "credentials",
    ),
]


@pytest.mark.parametrize(
    ("make", "expected", "reason"),
    [case[1:] for case in TRANSPORT_CASES],
    ids=[case[0] for case in TRANSPORT_CASES],
)
def test_transport_and_auth_errors(
    make: Callable[[], BaseException], expected: type[RouterError], reason: str | None
) -> None:
    """Timeouts, connection failures and credential problems map to their router errors."""
    error = translate_error(make())
    assert type(error) is expected
    assert error.reason == reason


def test_credential_errors_say_how_to_provide_credentials() -> None:
    """Missing ADC names the three ways to give the adapter credentials."""
    error = translate_error(auth_errors.DefaultCredentialsError("none"))
    assert isinstance(error, ConfigurationError)
    assert CREDENTIALS_HELP in str(error)
    for way in ("gcloud auth application-default login", "GOOGLE_APPLICATION_CREDENTIALS"):
        assert way in str(error)
    assert error.setting == "GOOGLE_APPLICATION_CREDENTIALS"


def test_translated_errors_chains_the_cause() -> None:
    """The context manager raises the router error from the SDK's exception."""
    original = httpx2.ConnectError("refused", request=_REQUEST)
    with pytest.raises(ProviderTransientError) as raised, translated_errors():
        raise original
    assert raised.value.__cause__ is original


def test_translated_errors_leaves_other_exceptions_alone() -> None:
    """An exception that is not an SDK or transport error passes through unchanged."""
    with pytest.raises(KeyError), translated_errors():
        raise KeyError("not ours")


def test_translated_errors_leaves_router_errors_alone() -> None:
    """A router error raised inside the block is not wrapped again."""
    original = ConfigurationError("x")
    with pytest.raises(ConfigurationError) as raised, translated_errors():
        raise original
    assert raised.value is original


def test_gemini_api_errors_name_the_gemini_vendor_and_key_settings() -> None:
    """Translated for the Gemini API, a bad key names the gemini vendor and its key settings."""
    row = next(row for row in ROWS if row["id"] == "400_api_key_invalid")
    error = translate_error(_api_error(row), GEMINI)
    assert isinstance(error, ProviderRequestError)
    assert (error.vendor, error.reason, error.status_code) == ("gemini", "auth", 400)
    assert "Gemini API refused the credentials" in str(error)
    assert "GOOGLE_API_KEY" in str(error)
