"""A running emulator, settings that point the Anthropic adapter at it, and an adapter."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adapters.anthropic.adapter import AnthropicAdapter
from router.emulator import Emulator
from router.settings import RouterSettings
from router.types import LLMRequest

KEY = "sk-ant-test-wire"
MODEL = "claude-sonnet-4-6"


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as running:
        yield running


@pytest.fixture
def settings(emulator: Emulator, make_settings: Callable[..., RouterSettings]) -> RouterSettings:
    return make_settings(anthropic_api_key=KEY, anthropic_base_url=emulator.anthropic_base_url)


@pytest.fixture
def adapter() -> Iterator[AnthropicAdapter]:
    created = AnthropicAdapter()
    yield created
    created.close()


@pytest.fixture
def ask() -> Callable[..., LLMRequest]:
    """A request for the emulator: one user question plus any request fields."""

    def build(question: str = "What is the capital of France?", **fields: Any) -> LLMRequest:
        messages = fields.pop("messages", [{"role": "user", "content": question}])
        return LLMRequest.model_validate(
            {"vendor": "anthropic", "model": MODEL, "messages": messages, **fields}
        )

    return build
