"""Calls through the ``openai`` SDK to one OpenAI-compatible service, shared by its providers.

OpenAI itself, OpenRouter and Perplexity are all reached with the ``openai`` client: their calls
are :class:`adapters.sdk.calls.SdkCalls` (clients per key and base URL, the shared HTTP stacks,
SDK retries off, the generic ``post``) with the ``openai`` SDK's errors translated under the
service's names (:mod:`adapters.openai_compatible.errors`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import partial

from adapters.openai_compatible.errors import OpenAIService, translate_openai_errors
from adapters.sdk.calls import ClientKey, SdkCalls, SdkClasses, client_key

__all__ = ["OPENAI_SDK", "ClientKey", "OpenAICalls", "client_key"]

OPENAI_SDK = SdkClasses("openai", "OpenAI", "AsyncOpenAI")


class OpenAICalls(SdkCalls):
    """The ``openai`` clients of one adapter, and its calls to ``service``."""

    def __init__(self, service: OpenAIService, *, default_base_url: str | None = None) -> None:
        super().__init__(
            OPENAI_SDK,
            service,
            partial(_translated, service),
            default_base_url=default_base_url,
        )


def _translated(service: OpenAIService, secret: str) -> AbstractContextManager[None]:
    return translate_openai_errors(secret=secret, service=service)
