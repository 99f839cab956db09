"""A provider's redirect is the call's answer: the prompt is never sent on to another host.

Both SDKs would follow a 307 and send the request again, prompt and all, to whatever host the
``Location`` names. The router's clients follow no redirect: the call ends with
``ProviderRequestError(reason="redirect")`` naming the host, and the other host (a second
emulator) receives nothing, through ``route()`` and ``aroute()`` for every vendor of the
registry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest

from adapters.registry import PROVIDERS
from router.emulator import Emulator
from router.errors import ProviderRequestError
from router.router import UnifiedLLMAdapter
from router.types import LLMResponse
from support.emulated import emulator_settings

VENDORS = list(PROVIDERS)
PATHS = {
    "openai": "/v1/responses",
    "vertex": "/v1beta1/projects/p/locations/l/publishers/google/models/m:generateContent",
    "gemini": "/v1beta/models/m:generateContent",
    "perplexity": "/chat/completions",
    "openrouter": "/api/v1/chat/completions",
    "anthropic": "/v1/messages",
}


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[Emulator]:
    """The host a hostile redirect points at."""
    with Emulator() as running:
        yield running


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    with UnifiedLLMAdapter(emulator_settings(emulator, max_attempts=1)) as built:
        yield built


@pytest.mark.parametrize("call", ["route", "aroute"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_redirect_is_reported_not_followed(
    vendor: str, call: str, router: UnifiedLLMAdapter, emulator: Emulator, elsewhere: Emulator
) -> None:
    """A 307 to another host ends the call as a redirect error; that host gets no request."""
    if vendor not in PATHS:  # a new row must be covered here, not skipped
        pytest.fail(f"{vendor}: add its endpoint path to PATHS (its emulator module names it)")
    target = f"http://127.0.0.1:{elsewhere.port}{PATHS[vendor]}"
    emulator.enqueue_raw(
        vendor,  # type: ignore[arg-type]
        (
            f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}\r\n"
            "Content-Length: 0\r\nConnection: close\r\n\r\n"
        ).encode(),
    )
    elsewhere.clear_requests()
    request = {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,
        "messages": [{"role": "user", "content": "A prompt that must stay with its provider"}],
    }
    send: Callable[[], LLMResponse] = (
        (lambda: router.route(request))
        if call == "route"
        else (lambda: asyncio.run(router.aroute(request)))
    )
    with pytest.raises(ProviderRequestError) as caught:
        send()
    assert caught.value.reason == "redirect"
    assert caught.value.status_code == 307
    assert "to 127.0.0.1" in caught.value.message
    assert elsewhere.requests == []
