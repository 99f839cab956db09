"""stream() / astream() end to end: the real SDKs against the emulator (DESIGN.md section 9)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router import (
    CitationDelta,
    Completed,
    GroundingRequiredFailedError,
    LLMResponse,
    ProviderTransientError,
    Router,
    StreamEvent,
    TextDelta,
)
from router.emulator import Emulator
from support.emulated import emulator_settings
from support.sleeps import RecordedSleeps

STREAMING = [row for row in PROVIDERS.values() if row.capabilities.streaming]
VENDORS = [pytest.param(row.vendor, id=row.vendor) for row in STREAMING]
QUESTION = "Who won the 2022 World Cup?"


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    """One seeded emulator: the same request gets the same reply, streamed or not."""
    with Emulator(seed="streams") as running:
        yield running


@pytest.fixture
def router(emulator: Emulator) -> Iterator[Router]:
    sleeps = RecordedSleeps()
    with Router(emulator_settings(emulator), sleep=sleeps, async_sleep=sleeps.asleep) as router:
        yield router


def _request(vendor: str, question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,  # type: ignore[index]
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
        **extra,
    }


def _without_timing(response: LLMResponse) -> dict[str, Any]:
    return response.model_dump(exclude={"latency_ms"})


def _text(events: list[StreamEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("json_mode", [False, True], ids=["text", "json"])
def test_stream_completes_with_what_route_returns(
    router: Router, vendor: str, json_mode: bool
) -> None:
    """Completed.response is route()'s response for the same request, but for timing."""
    request = _request(vendor, json_mode=json_mode)
    events = list(router.stream(request))
    assert isinstance(events[-1], Completed)
    assert sum(isinstance(event, Completed) for event in events) == 1
    assert _without_timing(events[-1].response) == _without_timing(router.route(request))


@pytest.mark.parametrize("vendor", VENDORS)
async def test_astream_completes_with_what_aroute_returns(router: Router, vendor: str) -> None:
    """The async stream ends as the sync one does, with aroute()'s response."""
    request = _request(vendor)
    events = [event async for event in router.astream(request)]
    assert isinstance(events[-1], Completed)
    assert _without_timing(events[-1].response) == _without_timing(await router.aroute(request))
    await router.aclose()


@pytest.mark.parametrize("vendor", VENDORS)
def test_text_arrives_in_pieces_that_make_the_content(router: Router, vendor: str) -> None:
    """Several TextDelta events come before Completed, and join into its content."""
    events = list(router.stream(_request(vendor)))
    completed = events[-1]
    assert isinstance(completed, Completed)
    assert sum(isinstance(event, TextDelta) for event in events) > 1
    assert _text(events) == completed.response.content


@pytest.mark.parametrize("vendor", VENDORS)
def test_citation_spans_point_into_delivered_text(router: Router, vendor: str) -> None:
    """Each CitationDelta's spans lie in the text delivered before it, and cover that text."""
    delivered = ""
    spans = 0
    for event in router.stream(_request(vendor)):
        if isinstance(event, TextDelta):
            delivered += event.text
        elif isinstance(event, CitationDelta):
            for span in event.citation["spans"]:
                spans += 1
                assert span["end"] <= len(delivered)
                assert delivered[span["start"] : span["end"]] == span["text"]
    assert spans


@pytest.mark.parametrize(
    "vendor",
    [pytest.param(r.vendor, id=r.vendor) for r in STREAMING if r.capabilities.two_step_json],
)
def test_two_step_json_streams_step1_then_the_json(router: Router, vendor: str) -> None:
    """Step 1's prose streams; the JSON arrives as one last TextDelta, then Completed."""
    events = list(router.stream(_request(vendor, json_mode=True)))
    completed = events[-1]
    assert isinstance(completed, Completed)
    response = completed.response
    last_text = [event for event in events if isinstance(event, TextDelta)][-1]
    assert last_text.text == response.content
    assert response.parsed is not None
    assert _text(events) == response.metadata["step1"]["content"] + response.content


@pytest.mark.parametrize("vendor", VENDORS)
def test_required_grounding_fails_at_the_end_of_the_stream(router: Router, vendor: str) -> None:
    """Text flows, then GroundingRequiredFailedError instead of Completed."""
    request = _request(
        vendor, f"{QUESTION} [[emulator:fault=no_search]]", grounding_mode="REQUIRED"
    )
    events: list[StreamEvent] = []
    with pytest.raises(GroundingRequiredFailedError) as raised:
        events.extend(router.stream(request))
    assert _text(events)
    assert not any(isinstance(event, Completed) for event in events)
    assert raised.value.reason == "not_invoked"
    assert raised.value.response is not None


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_stream_cut_midway_raises_saying_what_was_delivered(
    router: Router, emulator: Emulator, vendor: str
) -> None:
    """A truncated stream is a transient error naming what was delivered, never a short answer."""
    question = f"{QUESTION} cut {vendor} [[emulator:fault=truncate]]"
    before = len(emulator.requests)
    events: list[StreamEvent] = []
    with pytest.raises(ProviderTransientError) as raised:
        events.extend(router.stream(_request(vendor, question)))
    delivered = len(_text(events))
    assert delivered > 0
    assert raised.value.reason == "stream_cut"
    assert f"{delivered} characters" in str(raised.value)
    assert not any(isinstance(event, Completed) for event in events)
    assert len(emulator.requests) == before + 1  # not retried once text was delivered


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_failure_before_the_first_event_is_retried(router: Router, vendor: str) -> None:
    """A 500 on the first attempt is retried; the stream then completes."""
    question = f"{QUESTION} retried {vendor} [[emulator:fault=500*1]]"
    events = list(router.stream(_request(vendor, question)))
    completed = events[-1]
    assert isinstance(completed, Completed)
    assert completed.response.attempts == 2


@pytest.mark.parametrize("vendor", VENDORS)
def test_stopping_early_closes_the_stream(router: Router, vendor: str) -> None:
    """A caller that stops after the first text ends the stream; the router stays usable."""
    events = router.stream(_request(vendor))
    first = next(iter(events))
    assert not isinstance(first, Completed)
    events.close()  # type: ignore[attr-defined]
    assert isinstance(list(router.stream(_request(vendor)))[-1], Completed)


@pytest.mark.parametrize("vendor", VENDORS)
async def test_an_async_stream_left_half_read_closes_cleanly(router: Router, vendor: str) -> None:
    """Breaking out of astream leaves nothing for the event loop to report when it closes it."""
    import asyncio
    import gc

    reported: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _, context: reported.append(context))
    async for event in router.astream(_request(vendor, f"{QUESTION} half {vendor}")):
        assert not isinstance(event, Completed)
        break
    gc.collect()
    for _ in range(5):  # the loop's async-generator finalizer runs as tasks of their own
        await asyncio.sleep(0)
    await router.aclose()
    assert reported == []


def test_a_stream_the_provider_fails_raises_after_its_text(
    router: Router, emulator: Emulator
) -> None:
    """A response.failed after some text: the text was delivered, then stream_failed, no retry."""
    import json

    from support.recorded import load_events, recorded_files

    (path,) = recorded_files("mirascope/openai_responses_gpt4o_stream.sse.txt")
    events = load_events(path)
    first = next(i for i, e in enumerate(events) if e["type"] == "response.output_text.delta")
    failed = {
        "type": "response.failed",
        "response": {"status": "failed", "error": {"code": "server_error", "message": "boom"}},
    }
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in [*events[: first + 5], failed])
    emulator.enqueue_reply("openai", body.encode(), content_type="text/event-stream")
    before = len(emulator.requests)
    delivered: list[StreamEvent] = []
    with pytest.raises(ProviderTransientError) as raised:
        delivered.extend(router.stream(_request("openai", f"{QUESTION} failed")))
    assert raised.value.reason == "stream_failed"
    assert "boom" in str(raised.value)
    assert f"{len(_text(delivered))} characters" in str(raised.value)
    assert _text(delivered)
    assert len(emulator.requests) == before + 1
