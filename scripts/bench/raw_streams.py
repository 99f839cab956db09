"""The baselines of the stream bench: each vendor's SDK streaming the call its adapter makes.

For every registered vendor, the SDK's own typed stream of the same request, as a pipeline
without the router would write it: the body built by the adapter's own request builders, the
same base URL and credentials, the SDK's retries off and its aiohttp transport (the one the
adapter's async clients use). What the adapter does beyond that (the generic ``post`` with
plain-dict events, the router's reply bounds, translation, reading) is what the bench times.
``is_text`` says whether a streamed item carries answer text, the raw stream's first-text mark.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from adapters.anthropic.request import build_message_params
from adapters.anthropic.request import plan_steps as anthropic_steps
from adapters.openai.request import build_response_params
from adapters.openrouter.request import build_openrouter_params
from adapters.perplexity.request import build_chat_params
from adapters.sdk.http_clients import call_sdk_timeout_s
from adapters.vertex.clients import GenAIClients, VertexClients
from adapters.vertex.gemini_clients import GeminiClients
from adapters.vertex.request import build_config, build_contents, plan_steps
from router.settings import RouterSettings
from router.types import LLMRequest

__all__ = ["Closer", "RawStream", "is_text", "raw_stream"]

RawStream = Callable[[], AsyncIterator[Any]]
Closer = Callable[[], Any]


def raw_stream(
    vendor: str, request: LLMRequest, settings: RouterSettings
) -> tuple[RawStream, Closer]:
    """The SDK's own stream of the call the adapter makes, and how to close its client."""
    return _BUILDERS[vendor](request, settings)


def is_text(vendor: str, item: Any) -> bool:
    """Whether ``item`` of ``vendor``'s raw stream carries answer text."""
    return _TEXT[vendor](item)


def _secret(value: Any) -> str:
    return str(value.get_secret_value())


def _openai(request: LLMRequest, settings: RouterSettings) -> tuple[RawStream, Closer]:
    from openai import AsyncOpenAI, DefaultAioHttpClient

    client = AsyncOpenAI(
        api_key=_secret(settings.openai_api_key),
        base_url=settings.openai_base_url,
        max_retries=0,
        http_client=DefaultAioHttpClient(),
    )
    params = build_response_params(request, force_search=settings.openai_force_search)
    timeout = call_sdk_timeout_s(request, settings)

    async def events() -> AsyncIterator[Any]:
        stream = await client.responses.create(**params, stream=True, timeout=timeout)
        async for event in stream:
            yield event

    return events, client.close


def _chat(
    api_key: Any, base_url: str | None, params: dict[str, Any], timeout: float
) -> tuple[RawStream, Closer]:
    """``chat.completions.create`` of an OpenAI-compatible service; the body's fields the typed
    signature does not know (a plugin, a search filter) go as ``extra_body``, as documented."""
    from openai import AsyncOpenAI, DefaultAioHttpClient

    client = AsyncOpenAI(
        api_key=_secret(api_key),
        base_url=base_url,
        max_retries=0,
        http_client=DefaultAioHttpClient(),
    )
    extra = dict(params)
    model, messages = extra.pop("model"), extra.pop("messages")

    async def chunks() -> AsyncIterator[Any]:
        stream = await client.chat.completions.create(
            model=model, messages=messages, stream=True, extra_body=extra, timeout=timeout
        )
        async for chunk in stream:
            yield chunk

    return chunks, client.close


def _perplexity(request: LLMRequest, settings: RouterSettings) -> tuple[RawStream, Closer]:
    timeout = call_sdk_timeout_s(request, settings)
    params = build_chat_params(request)
    return _chat(settings.perplexity_api_key, settings.perplexity_base_url, params, timeout)


def _openrouter(request: LLMRequest, settings: RouterSettings) -> tuple[RawStream, Closer]:
    timeout = call_sdk_timeout_s(request, settings)
    params = build_openrouter_params(request)
    return _chat(settings.openrouter_api_key, settings.openrouter_base_url, params, timeout)


def _anthropic(request: LLMRequest, settings: RouterSettings) -> tuple[RawStream, Closer]:
    from anthropic import AsyncAnthropic, DefaultAioHttpClient

    client = AsyncAnthropic(
        api_key=_secret(settings.anthropic_api_key),
        base_url=settings.anthropic_base_url,
        max_retries=0,
        http_client=DefaultAioHttpClient(),
    )
    step = anthropic_steps(request)[0]
    params = build_message_params(request, step, max_uses=settings.anthropic_max_searches)
    timeout = call_sdk_timeout_s(request, settings)

    async def events() -> AsyncIterator[Any]:
        stream = await client.messages.create(**params, stream=True, timeout=timeout)
        async for event in stream:
            yield event

    return events, client.close


def _google(clients: GenAIClients[Any]) -> Callable[..., tuple[RawStream, Closer]]:
    """Vertex AI or the Gemini API: google-genai's stream on the adapter's own client (its
    aiohttp session, its timeout), with the adapter's contents and config."""

    def build(request: LLMRequest, settings: RouterSettings) -> tuple[RawStream, Closer]:
        client = clients.async_client(settings)
        step = plan_steps(request)[0]
        contents: Any = build_contents(request, step)  # plain dicts, which the SDK takes
        # The client carries the settings' timeout; the adapter sets none per call unless the
        # request has its own, which the bench's request has not.
        config = build_config(request, step, None, streaming=True)

        async def chunks() -> AsyncIterator[Any]:
            stream = await client.models.generate_content_stream(
                model=request.model, contents=contents, config=config
            )
            async for chunk in stream:
                yield chunk

        return chunks, clients.aclose

    return build


def _responses_text(event: Any) -> bool:
    return getattr(event, "type", None) == "response.output_text.delta"


def _chat_text(chunk: Any) -> bool:
    return bool(chunk.choices and chunk.choices[0].delta.content)


def _anthropic_text(event: Any) -> bool:
    return bool(event.type == "content_block_delta" and event.delta.type == "text_delta")


def _google_text(chunk: Any) -> bool:
    candidates = chunk.candidates or []
    parts = (candidates[0].content.parts or []) if candidates and candidates[0].content else []
    return any(part.text and not part.thought for part in parts)


_BUILDERS: dict[str, Callable[[LLMRequest, RouterSettings], tuple[RawStream, Closer]]] = {
    "openai": _openai,
    "vertex": _google(VertexClients()),
    "gemini": _google(GeminiClients()),
    "perplexity": _perplexity,
    "openrouter": _openrouter,
    "anthropic": _anthropic,
}
_TEXT: dict[str, Callable[[Any], bool]] = {
    "openai": _responses_text,
    "vertex": _google_text,
    "gemini": _google_text,
    "perplexity": _chat_text,
    "openrouter": _chat_text,
    "anthropic": _anthropic_text,
}
