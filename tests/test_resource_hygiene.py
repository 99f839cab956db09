"""1,000 failing and 1,000 succeeding routes leave file descriptors and threads where they were.

Every vendor, through ``route()`` and through ``asyncio.run(router.aroute(...))`` (a new event
loop each time, as a synchronous program calling the async API does), with failures of every
delivery kind (server errors, bad requests, dropped connections, cut and non-JSON bodies, REQUIRED
grounding not met). The counts are taken after a warm-up, since the first calls create the SDK
clients, their connection pools and import-time state.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from router.errors import RouterError
from router.router import UnifiedLLMAdapter
from support.emulated import VENDORS, emulator_settings, grounded_request
from support.emulator_process import EmulatorAddresses, emulator_process

ROUTES = 1_000
LOOP_BATCH = 50
FAULTS = ("500", "400", "drop", "truncate", "non_json", "no_search")
FD_TOLERANCE = 4  # a pooled keep-alive connection may be open or not at the moment of counting
TEST_TIMEOUT_S = 300
# The counts are about descriptors and threads, not speed: no call may end at its deadline, or
# an answer counts as an error (994 of 1,000 once did with 10 s, LOOP_BATCH routes at once on
# two cores shared with other busy processes). A deadline as long as the test's own timeout
# cannot end a call before pytest-timeout would end the test, however loaded the machine.
CALL_TIMEOUT_S = TEST_TIMEOUT_S


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def native_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def requests(number: int, *, failing: bool) -> list[dict[str, Any]]:
    """``number`` requests alternating vendors; failing ones carry a fault and REQUIRED mode.

    A few distinct questions only: the emulator then serves its answers from its cache, and the
    time goes to the clients under test rather than to synthesis.
    """
    built = []
    for index in range(number):
        vendor = VENDORS[index % len(VENDORS)]
        question = f"What is the capital of country number {index % 6}?"
        if failing:
            fault = FAULTS[index % len(FAULTS)]
            question = f"{question} [[emulator:fault={fault}]]"
            built.append(grounded_request(vendor, question, mode="REQUIRED"))
        else:
            built.append(grounded_request(vendor, question))
    return built


def run(router: UnifiedLLMAdapter, batch: list[dict[str, Any]]) -> tuple[int, int]:
    """Half through route(), half through aroute() on fresh loops; (answers, router errors)."""
    answers = errors = 0
    half = len(batch) // 2
    for request in batch[:half]:
        try:
            router.route(request)
            answers += 1
        except RouterError:
            errors += 1

    async def concurrently(chunk: list[dict[str, Any]]) -> list[Any]:
        return await asyncio.gather(*(router.aroute(r) for r in chunk), return_exceptions=True)

    rest = batch[half:]
    for start in range(0, len(rest), LOOP_BATCH):
        for outcome in asyncio.run(concurrently(rest[start : start + LOOP_BATCH])):
            if isinstance(outcome, RouterError):
                errors += 1
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                answers += 1
    return answers, errors


@pytest.fixture(scope="module")
def emulator() -> Iterator[EmulatorAddresses]:
    """In a child process, so the counts below are the client's own descriptors and threads."""
    with emulator_process() as running:
        yield running


@pytest.fixture
def router(emulator: EmulatorAddresses) -> Iterator[UnifiedLLMAdapter]:
    settings = emulator_settings(emulator, max_attempts=1, timeout_s=CALL_TIMEOUT_S)
    with UnifiedLLMAdapter(settings) as built:
        yield built


@pytest.mark.timeout(TEST_TIMEOUT_S)
def test_thousands_of_routes_leave_descriptors_and_threads_alone(
    router: UnifiedLLMAdapter,
) -> None:
    """After warm-up, 1,000 failing and 1,000 succeeding routes change neither count."""
    run(router, requests(4 * LOOP_BATCH, failing=False) + requests(4 * LOOP_BATCH, failing=True))
    gc.collect()
    descriptors, threads, python_threads = (
        open_descriptors(),
        native_threads(),
        threading.active_count(),
    )
    assert run(router, requests(ROUTES, failing=False)) == (ROUTES, 0)
    assert run(router, requests(ROUTES, failing=True)) == (0, ROUTES)
    gc.collect()
    assert open_descriptors() <= descriptors + FD_TOLERANCE
    assert native_threads() == threads
    assert threading.active_count() == python_threads


@pytest.mark.parametrize("vendor", VENDORS)
def test_event_loops_close_their_clients(vendor: str, router: UnifiedLLMAdapter) -> None:
    """asyncio.run(aroute()) again and again leaves no socket for the garbage collector."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for number in range(5):
            asyncio.run(router.aroute(grounded_request(vendor, f"Loop {number}")))
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
