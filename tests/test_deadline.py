"""``timeout_s`` is one total deadline: a reply trickled past it ends on time, on every path.

The emulator's trickle faults keep every read well inside the SDKs' own per-read timeouts and
would deliver a normal answer after ``TRICKLE_S`` seconds: headers a byte at a time, the body
a byte at a time, the chunk framing a byte at a time, or a flood of ``100 Continue``. With
``timeout_s`` far shorter, ``route()`` and ``aroute()`` end with
``ProviderTransientError(reason="deadline")`` for every vendor of the registry, through its real
SDK (sync and async); the test's timeout is only a guard against a hang. Without the deadline
the same calls wait the trickle out and answer (the controls below show the trickle ends in a
normal answer).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router.emulator import Emulator
from router.errors import ProviderTransientError, RouterError
from router.router import UnifiedLLMAdapter
from router.types import LLMResponse
from support.emulated import emulator_settings

TRICKLES = ("trickle_headers", "trickle_body", "trickle_chunks", "continue_flood")
TRICKLE_S = 8.0
TIMEOUT_S = 0.6
VENDORS = list(PROVIDERS)
CALLS = ("route", "aroute")


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    with UnifiedLLMAdapter(emulator_settings(emulator, max_attempts=1)) as built:
        yield built


def request(vendor: str, fault: str, timeout_s: float, tag: str) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,
        "messages": [
            {"role": "user", "content": f"Capital of France? {tag} [[emulator:fault={fault}]]"}
        ],
        "grounded": True,
        "timeout_s": timeout_s,
    }


def send(router: UnifiedLLMAdapter, call: str, body: dict[str, Any]) -> LLMResponse:
    if call == "route":
        return router.route(body)
    return asyncio.run(router.aroute(body))


@pytest.mark.timeout(TRICKLE_S * 2)
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("kind", TRICKLES)
@pytest.mark.parametrize("vendor", VENDORS)
def test_trickled_reply_ends_with_the_deadline_error(
    vendor: str, kind: str, call: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """A reply trickled for 8 s ends at timeout_s=0.6 with the deadline error, which says so."""
    body = request(vendor, f"{kind}:{TRICKLE_S:g}", TIMEOUT_S, f"{kind}-{call}")
    with pytest.raises(ProviderTransientError) as caught:
        send(router, call, body)
    assert caught.value.reason == "deadline"
    assert "deadline of 0.6 s" in caught.value.message
    assert caught.value.vendor == vendor


@pytest.mark.parametrize("kind", TRICKLES)
@pytest.mark.parametrize("vendor", VENDORS)
def test_short_trickle_inside_the_deadline_is_answered(
    vendor: str, kind: str, router: UnifiedLLMAdapter
) -> None:
    """The control: a trickle that ends well inside timeout_s gives a normal grounded answer."""
    try:
        response = router.route(request(vendor, f"{kind}:0.3", 20.0, f"{kind}-short"))
    except RouterError as error:  # pragma: no cover - the assertion message says what broke
        pytest.fail(f"{type(error).__name__}: {error}")
    assert response.content
    assert response.grounded_effective


STREAMING = [vendor for vendor, row in PROVIDERS.items() if row.capabilities.streaming]


async def _drain(router: UnifiedLLMAdapter, body: dict[str, Any]) -> None:
    async for _ in router.astream(body):
        pass


@pytest.mark.timeout(TRICKLE_S * 2)
@pytest.mark.parametrize("call", ["stream", "astream"])
@pytest.mark.parametrize("kind", ["trickle_headers", "trickle_body"])
@pytest.mark.parametrize("vendor", STREAMING)
def test_trickled_stream_ends_with_the_deadline_error(
    vendor: str, kind: str, call: str, router: UnifiedLLMAdapter
) -> None:
    """A stream trickled for 8 s ends at timeout_s=0.6 with the deadline error."""
    body = request(vendor, f"{kind}:{TRICKLE_S:g}", TIMEOUT_S, f"{kind}-{call}")
    drain: Callable[[], object] = (
        (lambda: list(router.stream(body)))
        if call == "stream"
        else (lambda: asyncio.run(_drain(router, body)))
    )
    with pytest.raises(ProviderTransientError) as caught:
        drain()
    assert caught.value.reason == "deadline"
