"""JSON answers and caller metadata always give a response that can be written as JSON.

A JSON-mode answer nested past ``max_json_depth`` is refused as a ``ResponseParseError``
(``json_too_deep``), one past what Python can read or with an integer past its digit limit
likewise; an answer within the limit serialises, lone surrogates at any depth included. Each
vendor of the registry is served the crafted answer by the emulator through its real SDK.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router.emulator import Emulator
from router.errors import ResponseParseError
from router.router import UnifiedLLMAdapter
from router.types import LLMResponse
from support.emulated import emulator_settings
from support.replies import reply_body

VENDORS = list(PROVIDERS)
CALLS = ("route", "aroute")


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    with UnifiedLLMAdapter(emulator_settings(emulator, max_attempts=1)) as built:
        yield built


def nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def answer(
    router: UnifiedLLMAdapter, emulator: Emulator, vendor: str, text: str, call: str
) -> LLMResponse:
    emulator.enqueue_reply(vendor, json.dumps(reply_body(vendor, text)).encode())  # type: ignore[arg-type]
    request: dict[str, Any] = {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,
        "messages": [{"role": "user", "content": "Give it as JSON"}],
        "json_mode": True,
    }
    if call == "route":
        return router.route(request)
    return asyncio.run(router.aroute(request))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("vendor", VENDORS)
def test_answer_nested_past_the_limit_is_refused(
    vendor: str, call: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """A JSON answer 256 levels deep is a ResponseParseError saying so, not a response that
    cannot be written."""
    with pytest.raises(ResponseParseError) as caught:
        answer(router, emulator, vendor, nested(256), call)
    assert caught.value.reason == "json_too_deep"
    assert "GROUNDING_ROUTER_MAX_JSON_DEPTH" in caught.value.message


@pytest.mark.parametrize("vendor", VENDORS)
def test_answer_nested_past_what_python_reads_is_refused(
    vendor: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """An answer 5,000 levels deep is json_too_deep, not an unexpected RecursionError."""
    with pytest.raises(ResponseParseError) as caught:
        answer(router, emulator, vendor, nested(5_000), "route")
    assert caught.value.reason == "json_too_deep"


@pytest.mark.parametrize("vendor", VENDORS)
def test_answer_with_an_integer_past_the_digit_limit_is_refused(
    vendor: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """A 5,000-digit integer (valid JSON Python will not read) is invalid_json, said clearly."""
    with pytest.raises(ResponseParseError) as caught:
        answer(router, emulator, vendor, '{"n": ' + "7" * 5_000 + "}", "route")
    assert caught.value.reason == "invalid_json"


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("vendor", VENDORS)
def test_answer_within_the_limit_serialises_with_a_deep_lone_surrogate(
    vendor: str, call: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """An answer 100 levels deep with a lone surrogate at the bottom writes as UTF-8 JSON."""
    response = answer(router, emulator, vendor, nested(100, '"\\ud800"'), call)
    written = json.loads(response.model_dump_json())
    leaf = written["parsed"]
    for _ in range(100):
        leaf = leaf[0]
    assert leaf == "\ufffd"


def test_limit_is_a_setting(emulator: Emulator) -> None:
    """GROUNDING_ROUTER_MAX_JSON_DEPTH lowers the limit: 11 levels fail where 10 are allowed."""
    vendor = VENDORS[0]
    settings = emulator_settings(emulator, max_attempts=1, max_json_depth=10)
    with UnifiedLLMAdapter(settings) as router:
        assert answer(router, emulator, vendor, nested(10), "route").parsed is not None
        with pytest.raises(ResponseParseError, match="more than 10 levels"):
            answer(router, emulator, vendor, nested(11), "route")
