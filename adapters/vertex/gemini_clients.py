"""google-genai clients for the Gemini Developer API (``vertexai=False``, an API key).

The one part of the Gemini path that differs from Vertex AI's: the client is made from an API
key (``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``), sent as ``x-goog-api-key``, instead of a
project, a location and OAuth credentials. Clients are keyed, reused, closed and given an
aiohttp session per event loop exactly as Vertex AI's (:class:`clients.GenAIClients`).

The API version is pinned (``GROUNDING_ROUTER_GEMINI_API_VERSION``, default ``v1beta``):
google-genai 3.x sends Developer API calls to ``v1`` unless told otherwise (2.x sent them to
``v1beta``), while Google's grounding documentation, its REST examples and every recorded
grounded Gemini API exchange go through ``v1beta``, where Google Search grounding and
``responseJsonSchema`` are served. Pinning keeps the path what the grounding features are
documented on, whatever the SDK's default becomes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from adapters.sdk.http_clients import sdk_timeout_s
from adapters.vertex.clients import GenAIClients, http_options, timeout_ms
from router.errors import ConfigurationError
from router.logging import register_secret
from router.settings import RouterSettings

if TYPE_CHECKING:
    from google.genai import Client

__all__ = ["KEY_SETTINGS", "GeminiClients"]

KEY_SETTINGS = ("GOOGLE_API_KEY", "GEMINI_API_KEY")


class _GeminiKey(NamedTuple):
    api_key: str
    base_url: str | None
    api_version: str
    timeout_ms: int


def _gemini_key(settings: RouterSettings) -> _GeminiKey:
    """The settings that shape a client; a missing API key is a configuration error."""
    secret = settings.gemini_api_key
    api_key = secret.get_secret_value().strip() if secret is not None else ""
    if not api_key:
        raise ConfigurationError(
            "Gemini API: no API key; set GOOGLE_API_KEY or GEMINI_API_KEY (an API key from "
            "Google AI Studio)",
            setting="GEMINI_API_KEY",
            vendor="gemini",
        )
    return _GeminiKey(
        api_key=api_key,
        base_url=settings.gemini_base_url or None,
        api_version=settings.gemini_api_version.strip(),
        timeout_ms=timeout_ms(sdk_timeout_s(settings.timeout_s)),
    )


def _new_gemini_client(key: _GeminiKey, *, async_http: Any = None, sync_http: Any = None) -> Client:
    from google import genai

    # Known to the redaction from here on, as the Vertex access token is (see ``clients``).
    register_secret(key.api_key)
    try:
        return genai.Client(
            vertexai=False,
            api_key=key.api_key,
            http_options=http_options(
                base_url=key.base_url,
                api_version=key.api_version,
                timeout_ms=key.timeout_ms,
                sync_http=sync_http,
                async_http=async_http,
            ),
        )
    except ValueError as exc:  # the SDK validates its arguments, and says what it wants
        raise ConfigurationError(
            f"Gemini API client could not be created: {exc}", vendor="gemini"
        ) from exc


class GeminiClients(GenAIClients[_GeminiKey]):
    """The Gemini Developer API clients of one adapter."""

    def __init__(self) -> None:
        super().__init__(_gemini_key, _new_gemini_client)
