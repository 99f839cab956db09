"""Fixtures: a running emulator and the real SDK clients pointed at it (retries off)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import google.oauth2.credentials
import openai
import pytest
import pytest_asyncio
from google import genai
from google.genai import types

from router.emulator import Emulator


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as running:
        yield running


@pytest.fixture
def openai_client(emulator: Emulator) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(
        base_url=emulator.openai_base_url, api_key="sk-test", max_retries=0, timeout=5.0
    ) as client:
        yield client


@pytest_asyncio.fixture
async def async_openai_client(emulator: Emulator) -> AsyncIterator[openai.AsyncOpenAI]:
    async with openai.AsyncOpenAI(
        base_url=emulator.openai_base_url, api_key="sk-test", max_retries=0, timeout=5.0
    ) as client:
        yield client


def _vertex_client(emulator: Emulator, **http_options: Any) -> genai.Client:
    """The documented mock-safe Vertex recipe; genai does not retry unless told to."""
    options = {"timeout": 5_000, **http_options}
    return genai.Client(
        vertexai=True,
        project="emulated-project",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token="test"),
        http_options=types.HttpOptions(base_url=emulator.vertex_base_url, **options),
    )


@pytest.fixture
def vertex_client(emulator: Emulator) -> Iterator[genai.Client]:
    client = _vertex_client(emulator)
    yield client
    client.close()


@pytest.fixture
def vertex_client_factory(emulator: Emulator) -> Iterator[Callable[..., genai.Client]]:
    made: list[genai.Client] = []

    def build(target: Emulator | None = None, **http_options: Any) -> genai.Client:
        made.append(_vertex_client(target or emulator, **http_options))
        return made[-1]

    yield build
    for client in made:
        client.close()
