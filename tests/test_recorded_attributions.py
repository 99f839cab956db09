"""Attributions agree across route(), stream() and extract() on every recorded reply.

Each recorded final body of the kind a vendor's API answers with is served by the loopback
emulator and routed with the real SDK; each recorded SSE stream is served as a stream and read
with ``Router.stream``. The attributions of the response, of the stream's ``Completed``
response and of ``extract`` on the same bytes are one list, and each one's span is
``content[start:end]`` and names an existing citation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from router import extract
from router.emulator import Emulator
from router.errors import RouterError
from router.router import Router
from router.streaming import Completed
from router.types import LLMResponse
from support.emulated import VENDORS, emulator_settings, grounded_request
from support.recorded import files_for_vendor, load_final_body
from support.sleeps import RecordedSleeps
from support.streams import stream_cases

BODIES = [
    pytest.param(vendor, path, id=f"{vendor}:{path.parent.name}/{path.name}")
    for vendor in VENDORS
    for path in files_for_vendor(vendor)
    if not path.name.endswith((".sse.txt", ".chunks.jsonl"))
]
STREAMS = [
    pytest.param(vendor, path, id=f"{vendor}:{path.parent.name}/{path.name}")
    for path, vendor in stream_cases()
    if path.name.endswith(".sse.txt")
]


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[Router]:
    sleeps = RecordedSleeps()
    settings = emulator_settings(emulator, max_attempts=1)
    with Router(settings, sleep=sleeps, async_sleep=sleeps.asleep) as built:
        yield built


def _well_formed(response: LLMResponse) -> None:
    for each in response.attributions:
        assert 0 <= each["start"] <= each["end"] <= len(response.content)
        assert response.content[each["start"] : each["end"]] == each["text"]
        assert 0 <= each["citation"] < len(response.citations)
    starts = [(each["start"], each["end"]) for each in response.attributions]
    assert starts == sorted(starts)


def test_the_corpus_has_attributions_for_every_vendor() -> None:
    """Every vendor's recorded bodies give some attributions (the checks below are not empty)."""
    for vendor in VENDORS:
        found = [
            extract(vendor, load_final_body(path)).attributions for path in files_for_vendor(vendor)
        ]
        assert any(found) or vendor == "openrouter", vendor


@pytest.mark.parametrize(("vendor", "path"), BODIES)
def test_route_gives_the_attributions_extract_gives(
    vendor: str, path: Path, router: Router, emulator: Emulator
) -> None:
    """route() on a served recorded body and extract() on the same body agree."""
    body = load_final_body(path)
    offline = extract(vendor, body)
    emulator.enqueue_reply(vendor, json.dumps(body).encode())
    try:
        routed = router.route(grounded_request(vendor, f"attributions {path.name}"))
    except RouterError:
        assert not offline.content.strip()  # only a reply with no answer is refused
        return
    assert routed.content == offline.content
    assert routed.attributions == offline.attributions
    _well_formed(routed)


@pytest.mark.parametrize(("vendor", "path"), STREAMS)
def test_stream_completes_with_the_attributions_of_route_and_extract(
    vendor: str, path: Path, router: Router, emulator: Emulator
) -> None:
    """A served recorded stream: Completed, extract() of the stream and of its final body agree."""
    raw = path.read_text(encoding="utf-8")
    emulator.enqueue_reply(vendor, raw.encode(), content_type="text/event-stream")
    events = list(router.stream(grounded_request(vendor, f"stream {path.name}")))
    completed = events[-1]
    assert isinstance(completed, Completed)
    streamed = completed.response
    offline = extract(vendor, raw)
    final = extract(vendor, load_final_body(path))
    assert streamed.content == offline.content == final.content
    assert streamed.attributions == offline.attributions == final.attributions
    _well_formed(streamed)
