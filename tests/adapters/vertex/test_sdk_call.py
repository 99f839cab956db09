"""The adapters' google-genai call: the bodies it puts on the wire and what it costs the SDK.

The bodies the emulator receives for a table of request shapes (grounded or not, JSON with and
without a schema, two steps, system turns, location, blocked domains, sampling, a timeout of the
request's own, streams) are compared byte for byte with ``tests/data/vertex_sdk_bodies.json``,
recorded before the adapter handed the SDK plain-dict contents and configs cached per shape.
The SDK's cost is counted, never timed: the pydantic attribute fallbacks, ``hasattr`` and
``get_value_by_path`` calls and model copies one call makes, counted with ``sys.setprofile``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from pydantic import SecretStr

from adapters.vertex.adapter import GeminiAdapter, VertexAdapter
from router.emulator import Emulator
from router.settings import RouterSettings
from router.types import LLMRequest

BODIES = Path(__file__).parents[2] / "data" / "vertex_sdk_bodies.json"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "summary": {"type": "string"}},
    "required": ["city", "summary"],
}
SYSTEM = {"role": "system", "content": "Answer in two sentences."}
ASK = {"role": "user", "content": "What is the weather in Berlin today?"}

SHAPES: dict[str, dict[str, Any]] = {
    "grounded": {"messages": [ASK], "grounded": True},
    "grounded_system": {"messages": [SYSTEM, ASK], "grounded": True},
    "plain": {"messages": [ASK]},
    "multi_turn": {
        "messages": [
            SYSTEM,
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi, how can I help?"},
            ASK,
        ],
        "grounded": True,
    },
    "sampling": {"messages": [ASK], "temperature": 0.3, "max_output_tokens": 256},
    "location_blocked": {
        "messages": [SYSTEM, ASK],
        "grounded": True,
        "user_location": {"city": "Berlin", "country": "DE", "timezone": "Europe/Berlin"},
        "blocked_domains": ["example.com", "spam.test"],
    },
    "json_plain": {"messages": [ASK], "json_mode": True},
    "json_schema": {"messages": [SYSTEM, ASK], "json_schema": SCHEMA, "temperature": 0.1},
    "two_step": {"messages": [SYSTEM, ASK], "grounded": True, "json_schema": SCHEMA},
    "own_timeout": {"messages": [ASK], "grounded": True, "timeout_s": 7.5},
    "unicode": {"messages": [{"role": "user", "content": "Wetter in Köln? «Grüße» 🌦"}]},
}
MODES = ("complete", "acomplete", "stream")
ADAPTERS: dict[str, Callable[[], VertexAdapter | GeminiAdapter]] = {
    "vertex": VertexAdapter,
    "gemini": GeminiAdapter,
}


def _settings(emulator: Emulator, vendor: str) -> RouterSettings:
    if vendor == "vertex":
        return RouterSettings(
            google_cloud_project="p",
            google_cloud_location="us-central1",
            vertex_base_url=emulator.vertex_base_url,
            vertex_access_token=SecretStr("test-token"),
            timeout_s=5.0,
        )
    return RouterSettings(
        gemini_api_key=SecretStr("test-key"),
        gemini_base_url=emulator.gemini_base_url,
        timeout_s=5.0,
    )


def _request(vendor: str, shape: str) -> LLMRequest:
    return LLMRequest.model_validate(
        {"vendor": vendor, "model": "gemini-2.5-flash", **SHAPES[shape]}
    )


def _call(adapter: Any, request: LLMRequest, settings: RouterSettings, mode: str) -> None:
    if mode == "complete":
        adapter.complete(request, settings)
    elif mode == "acomplete":
        asyncio.run(adapter.acomplete(request, settings))
    else:
        for _chunk in adapter.stream(request, settings):
            pass


def sent_bodies(emulator: Emulator, vendor: str, shape: str, mode: str) -> list[str]:
    """The request bodies the emulator receives for one shape sent one way, as text."""
    emulator.clear_requests()
    adapter = ADAPTERS[vendor]()
    try:
        _call(adapter, _request(vendor, shape), _settings(emulator, vendor), mode)
    finally:
        adapter.close()
    return [sent.body.decode() for sent in emulator.requests]


def cases() -> Iterator[tuple[str, str, str]]:
    """Every vendor, shape and way; the Gemini API has no blocked domains (the router refuses
    them before any call)."""
    for vendor in ADAPTERS:
        for shape, fields in SHAPES.items():
            if vendor == "gemini" and "blocked_domains" in fields:
                continue
            for mode in MODES:
                yield vendor, shape, mode


@pytest.mark.parametrize(
    ("vendor", "shape", "mode"), [pytest.param(*case, id="-".join(case)) for case in cases()]
)
def test_sent_bodies_match_the_recording(
    emulator: Emulator, vendor: str, shape: str, mode: str
) -> None:
    """Each shape's request bodies are byte for byte those recorded before the change."""
    recorded = json.loads(BODIES.read_text(encoding="utf-8"))
    assert sent_bodies(emulator, vendor, shape, mode) == recorded[f"{vendor}-{shape}-{mode}"]


class _SdkWork(Counter[str]):
    """Counts what one call makes the SDK do (this thread only, as ``sys.setprofile`` is)."""

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            if code.co_name == "__getattr__" and "pydantic" in code.co_filename:
                self["pydantic __getattr__"] += 1
            elif code.co_name == "get_value_by_path":
                self[code.co_name] += 1
            elif code.co_name == "model_copy" and frame.f_locals.get("deep"):
                self["deep model_copy"] += 1
        elif event == "c_call" and getattr(arg, "__name__", None) == "hasattr":
            self["hasattr"] += 1


def _sdk_work(emulator: Emulator, vendor: str, shape: str) -> _SdkWork:
    adapter = ADAPTERS[vendor]()
    settings = _settings(emulator, vendor)
    try:
        adapter.complete(_request(vendor, shape), settings)  # clients and imports made
        work = _SdkWork()
        sys.setprofile(work)
        try:
            adapter.complete(_request(vendor, shape), settings)
        finally:
            sys.setprofile(None)
    finally:
        adapter.close()
    return work


@pytest.mark.parametrize("vendor", list(ADAPTERS))
@pytest.mark.parametrize("shape", ["grounded", "json_schema", "multi_turn"])
def test_a_call_takes_no_pydantic_attribute_fallbacks(
    emulator: Emulator, vendor: str, shape: str
) -> None:
    """A repeated call makes the SDK take no pydantic ``__getattr__`` fallback and copy no
    deeply: its contents are plain dicts and its config one built for the shape, AFC off."""
    work = _sdk_work(emulator, vendor, shape)
    assert work["pydantic __getattr__"] == 0, work
    assert work["deep model_copy"] == 0, work


@pytest.mark.parametrize("vendor", list(ADAPTERS))
def test_a_call_asks_hasattr_less_often_than_typed_contents_did(
    emulator: Emulator, vendor: str
) -> None:
    """A grounded call's ``hasattr`` count stays well below the 254 that typed contents cost
    (each pydantic fallback asked it too); ``get_value_by_path`` walks fixed paths, so its
    count does not depend on what the adapter hands over."""
    work = _sdk_work(emulator, vendor, "grounded")
    assert work["hasattr"] < 160, work
