"""The call's citation and forensic-event caps apply inside every vendor's stream reader.

``route()`` keeps at most ``max_citations`` sources of a reply and emits at most
``max_debug_events`` forensic events per call; a stream reads the same reply chunk by chunk,
so the same caps must hold there, and the response must say when they cut.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router import CitationDelta, Completed, Router
from router.emulator import Emulator
from support.emulated import emulator_settings
from support.logs import capture_logs
from support.sleeps import RecordedSleeps

STREAMING = [row.vendor for row in PROVIDERS.values() if row.capabilities.streaming]


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    """One seeded emulator whose grounded answers cite several sources."""
    with Emulator(seed="stream-limits") as running:
        yield running


def _request(vendor: str) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,  # type: ignore[index]
        "messages": [{"role": "user", "content": "Who won the 2022 World Cup?"}],
        "grounded": True,
    }


@pytest.mark.parametrize("vendor", STREAMING)
def test_a_stream_keeps_at_most_max_citations(emulator: Emulator, vendor: str) -> None:
    """With max_citations=1, neither the deltas nor the response name a second source."""
    settings = emulator_settings(emulator, max_citations=1)
    sleeps = RecordedSleeps()
    with Router(settings, sleep=sleeps, async_sleep=sleeps.asleep) as router:
        whole = router.route(_request(vendor))
        events = list(router.stream(_request(vendor)))
    (completed,) = [event for event in events if isinstance(event, Completed)]
    response = completed.response
    streamed = {event.citation["url"] for event in events if isinstance(event, CitationDelta)}
    assert len(response.citations) <= 1
    assert len(streamed) <= 1
    assert [c["url"] for c in response.citations] == [c["url"] for c in whole.citations]
    said = [w for w in response.metadata["warnings"] if "GROUNDING_ROUTER_MAX_CITATIONS=1" in w]
    route_said = [w for w in whole.metadata["warnings"] if "GROUNDING_ROUTER_MAX_CITATIONS=1" in w]
    assert said == route_said != []


@pytest.mark.parametrize("vendor", STREAMING)
def test_a_stream_emits_at_most_max_debug_events(emulator: Emulator, vendor: str) -> None:
    """With DEBUG_GROUNDING and max_debug_events=2, a stream logs at most 2 forensic events."""
    settings = emulator_settings(emulator, debug_grounding=True, max_debug_events=2)
    sleeps = RecordedSleeps()
    with (
        Router(settings, sleep=sleeps, async_sleep=sleeps.asleep) as router,
        capture_logs() as logs,
    ):
        list(router.stream(_request(vendor)))
    forensic = [
        entry
        for entry in logs
        if entry.get("log_level") == "debug"
        and entry.get("event") != "route_completed"
        and not str(entry.get("event")).endswith("_client_created")
    ]
    assert len(forensic) <= 2
    assert any(entry.get("event") == "forensic_events_cut" for entry in logs)
