"""Every log event of a routed request says which request it belongs to, debug events included."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

import pytest
import structlog

from router.emulator import Emulator
from router.router import UnifiedLLMAdapter
from support.emulated import MODELS, VENDORS, emulator_settings, grounded_request
from support.logs import capture_logs

CONTEXT = ("request_id", "vendor", "model")


def _captured() -> Any:
    """Captured events with the context variables merged in, as the CLI's chain merges them."""
    return capture_logs(processors=[structlog.contextvars.merge_contextvars])


@pytest.mark.parametrize("vendor", VENDORS)
def test_debug_events_of_a_route_carry_the_request(vendor: str, emulator: Emulator) -> None:
    """With DEBUG_GROUNDING, the extraction events carry request_id, vendor and model."""
    settings = emulator_settings(emulator, debug_grounding=True)
    request = grounded_request(vendor, "Who won the 2026 Giro?", request_id=f"ctx-{vendor}")
    with _captured() as events, UnifiedLLMAdapter(settings) as router:
        router.route(request)
    assert {event["event"] for event in events} >= {"citation_domain_derived", "route_completed"}
    for event in events:
        assert (event.get("request_id"), event.get("vendor"), event.get("model")) == (
            f"ctx-{vendor}",
            vendor,
            MODELS[vendor],
        ), event


def test_concurrent_routes_can_be_told_apart(emulator: Emulator) -> None:
    """In concurrent routes, each event names its own request, so a run filters per request."""
    settings = emulator_settings(emulator, debug_grounding=True)
    requests = [
        grounded_request(vendor, f"Question {n} for {vendor}", request_id=f"{vendor}-{n}")
        for n in range(3)
        for vendor in VENDORS
    ]

    async def run_all() -> None:
        async with UnifiedLLMAdapter(settings) as router:
            await asyncio.gather(*(router.aroute(request) for request in requests))

    with _captured() as events:
        asyncio.run(run_all())
    by_request: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        assert all(key in event for key in CONTEXT), event
        by_request[event["request_id"]].append(event)
    assert set(by_request) == {request["request_id"] for request in requests}
    for request_id, own in by_request.items():
        vendor = request_id.split("-")[0]
        assert {event["vendor"] for event in own} == {vendor}
        assert "citation_domain_derived" in {event["event"] for event in own}


def test_context_ends_with_the_route(emulator: Emulator) -> None:
    """After a route returns, events logged elsewhere carry no request of its."""
    settings = emulator_settings(emulator)
    with UnifiedLLMAdapter(settings) as router:
        router.route(grounded_request("openai", "Context?", request_id="gone"))
    assert structlog.contextvars.get_contextvars() == {}


@pytest.mark.parametrize("vendor", VENDORS)
def test_stream_events_carry_the_request(vendor: str, emulator: Emulator) -> None:
    """A stream's debug events carry the request too, and leave no context behind."""
    settings = emulator_settings(emulator, debug_grounding=True)
    request = grounded_request(vendor, "Stream it", request_id=f"stream-{vendor}")
    with _captured() as events, UnifiedLLMAdapter(settings) as router:
        streamed = list(router.stream(request))
    assert streamed
    assert events
    assert {event.get("request_id") for event in events} == {f"stream-{vendor}"}
    assert structlog.contextvars.get_contextvars() == {}
