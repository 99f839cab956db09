"""A running emulator, settings that point the adapter at it, and an adapter closed after use."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adapters.openai.adapter import OpenAIAdapter
from router.emulator import Emulator
from router.settings import RouterSettings
from router.types import LLMRequest


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator() as running:
        yield running


@pytest.fixture
def settings(emulator: Emulator, make_settings: Callable[..., RouterSettings]) -> RouterSettings:
    return make_settings(openai_api_key="sk-test", openai_base_url=emulator.openai_base_url)


@pytest.fixture
def adapter() -> Iterator[OpenAIAdapter]:
    created = OpenAIAdapter()
    yield created
    created.close()


@pytest.fixture
def ask() -> Callable[..., LLMRequest]:
    """A request for the emulator: one user question plus any request fields."""

    def build(question: str = "What is the capital of France?", **fields: Any) -> LLMRequest:
        messages = fields.pop("messages", [{"role": "user", "content": question}])
        return LLMRequest.model_validate(
            {"vendor": "openai", "model": "gpt-5", "messages": messages, **fields}
        )

    return build
