"""The provider APIs the emulator speaks: one module each, each exporting one row, ``API``.

Adding an API is one module beside these, exporting a :class:`~router.emulator.apis.row.
ProviderApi`, and one entry in :data:`APIS`; nothing else in the emulator names an API.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from router.emulator.apis import (
    anthropic_messages,
    gemini,
    openai_responses,
    openrouter,
    perplexity,
    vertex,
)
from router.emulator.apis.row import Endpoint, ProviderApi

__all__ = ["APIS", "API_NAMES", "BY_NAME", "Endpoint", "ProviderApi", "api_of_path", "route"]

APIS: tuple[ProviderApi, ...] = (
    openai_responses.API,
    vertex.API,
    gemini.API,
    perplexity.API,
    openrouter.API,
    anthropic_messages.API,
)
"""Every API, in a stable order (listings, and which recorded body is whose, follow it)."""

API_NAMES: tuple[str, ...] = tuple(api.name for api in APIS)
BY_NAME: Mapping[str, ProviderApi] = MappingProxyType({api.name: api for api in APIS})


def route(method: str, path: str, query: Mapping[str, str]) -> tuple[ProviderApi, Endpoint] | None:
    """The API serving a request and what its path says, or None when no API serves it."""
    if method != "POST":
        return None
    for api in APIS:
        endpoint = api.match(path, query)
        if endpoint is not None:
            return api, endpoint
    return None


def api_of_path(path: str) -> ProviderApi:
    """The API whose error shape a path no API serves is answered in."""
    for api in APIS:
        if api.claims_path is not None and api.claims_path(path):
            return api
    return next(api for api in APIS if api.answers_unknown_paths)
