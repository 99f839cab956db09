"""``Router.route_many`` / ``Router.aroute_many``: a fan-out through the router one holds.

Code that holds a ``Router`` asks several providers with a method, as it streams with
``Router.stream``, without passing ``router=``; the sync and async twins plan, aggregate and
refuse alike (they share every decision in :mod:`router.fanout`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from router.emulator import Emulator
from router.errors import FanoutError, RequestValidationError
from router.fanout import FanoutResult
from router.router import Router
from support.emulated import emulator_settings

QUESTION: dict[str, Any] = {
    "messages": [{"role": "user", "content": "Who won the 2022 World Cup?"}],
    "grounded": True,
}
VENDORS = ["openai", "vertex", "anthropic"]


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[Router]:
    with Router(emulator_settings(emulator, max_attempts=1)) as built:
        yield built


def test_route_many_is_a_method_of_the_router(router: Router, emulator: Emulator) -> None:
    """The method sends one call per vendor through this router's clients and aggregates."""
    emulator.clear_requests()
    result = router.route_many(QUESTION, VENDORS)
    assert list(result.outcomes) == VENDORS
    assert set(result.responses) == set(VENDORS)
    assert len(emulator.requests) == len(VENDORS)
    assert result.aggregate.entries


def test_the_async_twin_gives_the_same_outcome(router: Router) -> None:
    """aroute_many plans and aggregates exactly as route_many does for the same answers."""
    sync = router.route_many(QUESTION, VENDORS, models={"openai": "gpt-5-mini"})
    asynchronous = asyncio.run(
        router.aroute_many(QUESTION, VENDORS, models={"openai": "gpt-5-mini"})
    )
    assert {v: r.model for v, r in sync.responses.items()} == {
        v: r.model for v, r in asynchronous.responses.items()
    }
    assert sync.responses["openai"].model == "gpt-5-mini"
    assert sync.aggregate.to_dict() == asynchronous.aggregate.to_dict()


@pytest.mark.parametrize("twin", ["sync", "async"])
def test_both_twins_refuse_a_bad_plan_alike(router: Router, twin: str) -> None:
    """A repeated vendor is the same request error from either twin, before any call."""

    def send() -> object:
        if twin == "sync":
            return router.route_many(QUESTION, ["openai", "OpenAI"])
        return asyncio.run(router.aroute_many(QUESTION, ["openai", "OpenAI"]))

    with pytest.raises(RequestValidationError, match="each vendor once") as caught:
        send()
    assert caught.value.field == "vendors"


def test_require_all_raises_with_the_partial_result(router: Router, emulator: Emulator) -> None:
    """require="all" through the method fails when one provider fails, keeping the others."""
    emulator.enqueue_reply("vertex", b'{"error": {"code": 400, "message": "bad"}}', status=400)
    with pytest.raises(FanoutError) as caught:
        router.route_many(QUESTION, ["openai", "vertex"], require="all")
    partial = caught.value.result
    assert isinstance(partial, FanoutResult)
    assert set(partial.responses) == {"openai"}
