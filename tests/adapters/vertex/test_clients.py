"""SDK clients: created lazily per settings, per event loop for async, and configuration errors
raised before any request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.vertex.adapter import VertexAdapter
from adapters.vertex.clients import VertexClients
from adapters.vertex.errors import CREDENTIALS_HELP
from router.errors import ConfigurationError
from router.settings import RouterSettings
from router.types import LLMRequest

# Nothing listens here: a test that reached the network would fail with a connection error.
_CLOSED_PORT_URL = "http://127.0.0.1:9"

REQUEST = LLMRequest.model_validate(
    {
        "vendor": "vertex",
        "model": "gemini-2.5-flash",
        "messages": [{"role": "user", "content": "hi"}],
    }
)


@pytest.fixture
def vertex_settings(make_settings: Callable[..., RouterSettings]) -> Callable[..., RouterSettings]:
    def build(**overrides: Any) -> RouterSettings:
        fields: dict[str, Any] = {
            "google_cloud_project": "p",
            "google_cloud_location": "us-central1",
            "vertex_base_url": _CLOSED_PORT_URL,
            "vertex_access_token": "token-a",
        }
        return make_settings(**{**fields, **overrides})

    return build


def test_missing_project_is_a_configuration_error(
    vertex_settings: Callable[..., RouterSettings],
) -> None:
    """Without a project the call fails before any request, naming GOOGLE_CLOUD_PROJECT."""
    adapter = VertexAdapter()
    with pytest.raises(ConfigurationError, match="GOOGLE_CLOUD_PROJECT") as raised:
        adapter.complete(REQUEST, vertex_settings(google_cloud_project=None))
    assert raised.value.setting == "GOOGLE_CLOUD_PROJECT"


def test_missing_credentials_say_how_to_provide_them(
    vertex_settings: Callable[..., RouterSettings],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """No token and no ADC: a ConfigurationError naming the ways to give credentials."""
    # ADC looks in gcloud's config directory and on the GCE metadata server: point the first
    # at an empty directory and switch the second off, so the lookup stays on this machine.
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))
    monkeypatch.setattr("google.auth.compute_engine._metadata._NO_GCE_CHECK", True)
    adapter = VertexAdapter()
    try:
        with pytest.raises(ConfigurationError) as raised:
            adapter.complete(REQUEST, vertex_settings(vertex_access_token=None))
    finally:
        adapter.close()
    assert CREDENTIALS_HELP in str(raised.value)
    assert raised.value.reason == "credentials"


def test_one_client_per_settings(vertex_settings: Callable[..., RouterSettings]) -> None:
    """Equal settings share a client; a different token gets its own."""
    clients = VertexClients()
    first = clients.sync_client(vertex_settings())
    assert clients.sync_client(vertex_settings()) is first
    assert clients.sync_client(vertex_settings(vertex_access_token="token-b")) is not first
    clients.close()


def test_async_clients_belong_to_their_event_loop(
    vertex_settings: Callable[..., RouterSettings],
) -> None:
    """Within a loop the async client is reused; another loop gets its own."""
    clients = VertexClients()
    settings = vertex_settings()

    async def twice() -> tuple[object, object]:
        pair = (clients.async_client(settings), clients.async_client(settings))
        await clients.aclose()
        return pair

    first_loop = asyncio.run(twice())
    second_loop = asyncio.run(twice())
    assert first_loop[0] is first_loop[1]
    assert second_loop[0] is not first_loop[0]
    clients.close()
