"""A REQUIRED answer asked again for (GROUNDING_ROUTER_REASK_ON_REQUIRED_FAILURE) is paid for:
its cost is in the final response's ``usage.cost``, or in the final error's ``usage`` when the
second answer is rejected too, for every vendor, through route() and aroute(), at the emulator.

The first answer's own cost is read from the ``grounding_required_reask`` event. A fault with a
count (``no_search*1``) spoils the first attempt of an identical request only, so the same
request routed again afterwards gets the second answer alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from router.emulator import Emulator
from router.errors import GroundingRequiredFailedError
from router.router import Router
from router.types import LLMResponse
from support.emulated import VENDORS, emulator_settings, grounded_request
from support.logs import capture_logs


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[Router]:
    settings = emulator_settings(emulator, reask_on_required_failure=True, max_attempts=1)
    with Router(settings) as built:
        yield built


def _route(router: Router, how: str, request: dict[str, Any]) -> LLMResponse:
    if how == "route":
        return router.route(request)
    return asyncio.run(router.aroute(request))


def _first_answer_cost(logs: list[Any]) -> float:
    (event,) = [entry for entry in logs if entry["event"] == "grounding_required_reask"]
    cost = event["cost"]
    assert isinstance(cost, float)
    assert cost > 0
    return cost


def _question(vendor: str, how: str, case: str, fault: str) -> str:
    # One question per test: the emulator counts the attempts of identical requests.
    return (
        f"Who maintains the CPython reference ({vendor} {how} {case})? [[emulator:fault={fault}]]"
    )


@pytest.mark.parametrize("how", ["route", "aroute"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_an_answer_asked_again_for_adds_its_cost(router: Router, vendor: str, how: str) -> None:
    """The rejected first answer and the grounded second one are both in ``usage.cost``."""
    request = grounded_request(
        vendor, _question(vendor, how, "answered", f"no_search*1@{vendor}"), mode="REQUIRED"
    )
    with capture_logs() as logs:
        response = _route(router, how, request)
    first = _first_answer_cost(logs)
    second = _route(router, how, {**request, "grounding_mode": "AUTO"})  # the fault is spent
    assert response.grounded_effective
    assert response.attempts == 2
    assert response.usage.cost is not None
    assert second.usage.cost is not None
    assert response.usage.cost.total == pytest.approx(first + second.usage.cost.total)


@pytest.mark.parametrize("how", ["route", "aroute"])
@pytest.mark.parametrize("vendor", VENDORS)
def test_two_rejected_answers_are_both_on_the_error(router: Router, vendor: str, how: str) -> None:
    """Both answers skipped the search: the error's usage carries what both cost."""
    request = grounded_request(
        vendor, _question(vendor, how, "rejected", f"no_search@{vendor}"), mode="REQUIRED"
    )
    with capture_logs() as logs, pytest.raises(GroundingRequiredFailedError) as caught:
        _route(router, how, request)
    first = _first_answer_cost(logs)
    usage = caught.value.usage
    assert usage is not None
    assert usage.cost is not None
    assert usage.cost.total == pytest.approx(2 * first)
    assert caught.value.to_dict()["usage"]["cost"]["total"] == pytest.approx(2 * first)
