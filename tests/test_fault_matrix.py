"""The fault matrix: every emulator fault x every vendor x AUTO/REQUIRED x route()/aroute().

Each cell of ``tests/data/fault_matrix.json`` states its outcome: an answer after N provider
calls (grounded or not, with citations or not), or exactly one ``RouterError`` subclass with its
reason, status code and the number of calls made. Transient faults appear twice: on every
attempt (retries run out) and as ``*N`` (the call recovers). The retry layer's sleeps are
recorded instead of waited. ``hang`` cells end at the request's ``timeout_s`` on every
attempt, and pytest-timeout fails any cell that hangs past it. A cell that recovers after a
deadline (``hang*1``, the trickles) gives its first call a deadline of its own
(``first_call_timeout_s``, through ``router.call_limits.deadlines_chosen_by``) and its retry the
request's long ``timeout_s``: with one short deadline for both, the answered retry raced it, and
on two cores shared with other busy processes it lost.

Why the margins hold on a busy machine: a faulted call cannot finish before its deadline however
late that fires (a hang never answers, a trickle takes 10 s), so a deadline only has to outlast
the client building and sending its request, which is what the emulator counts as a call; at
load 38 on two cores a 0.5 s deadline once ended a call before the request left, so these
deadlines are 2 s. An answer takes milliseconds of CPU on an idle machine; 15 s for it is tens
of times what a process gets slowed down by two cores shared with a dozen busy ones.
Nothing outside the ``RouterError`` tree may escape.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from router.call_limits import deadlines_chosen_by
from router.emulator import FAULT_KINDS, Emulator, FaultSpec
from router.errors import GroundingValidationError, ProviderError, RouterError
from router.router import UnifiedLLMAdapter
from router.types import LLMResponse
from support.citations import citation_problems
from support.deadlines import FirstCallDeadline
from support.emulated import VENDORS, emulator_settings, grounded_request
from support.logs import capture_logs
from support.sleeps import RecordedSleeps

MATRIX: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "fault_matrix.json").read_text(encoding="utf-8")
)
CELLS: list[dict[str, Any]] = MATRIX["cells"]
MODES = ("AUTO", "REQUIRED")
CELL_TIMEOUT_S = 90
CALLS = ("route", "aroute")
TRANSIENT_KINDS = (
    "429",
    "500",
    "503",
    "529",
    "hang",
    "drop",
    "truncate",
    "html",
    "trickle_headers",
    "trickle_body",
    "trickle_chunks",
    "continue_flood",
)


def _cell_id(cell: dict[str, Any]) -> str:
    return f"{cell['fault']}-{cell['vendor']}-{cell['mode']}"


@pytest.fixture(scope="module")
def sleeps() -> RecordedSleeps:
    return RecordedSleeps()


@pytest.fixture(scope="module")
def router(emulator: Emulator, sleeps: RecordedSleeps) -> Iterator[UnifiedLLMAdapter]:
    settings = emulator_settings(emulator, **MATRIX["settings"])
    with UnifiedLLMAdapter(settings, sleep=sleeps, async_sleep=sleeps.asleep) as built:
        for vendor in VENDORS:  # each SDK imported here, not inside the first cell's deadlines
            built.adapter_for(vendor)  # type: ignore[arg-type]
        yield built


def test_matrix_covers_every_fault_vendor_and_mode() -> None:
    """Every fault kind appears for every vendor and both modes; transient ones also recover."""
    cells = {(FaultSpec.parse(c["fault"]).kind, c["vendor"], c["mode"]) for c in CELLS}
    assert cells == set(product(FAULT_KINDS, VENDORS, MODES))
    recovering = {FaultSpec.parse(c["fault"]).kind for c in CELLS if "*" in c["fault"]}
    assert recovering == set(TRANSIENT_KINDS)
    assert len({(_cell_id(c)) for c in CELLS}) == len(CELLS)


def _outcome(call: Callable[[], LLMResponse]) -> LLMResponse | RouterError:
    try:
        return call()
    except RouterError as error:
        return error
    except Exception as exc:  # the point of the matrix: nothing else may leave route()
        pytest.fail(f"{type(exc).__name__} escaped the router: {exc}")


def _observed(outcome: LLMResponse | RouterError, calls_made: int, retried: str) -> dict[str, Any]:
    """What the cell observed; ``retried`` (the reasons of the retries) explains a mismatch."""
    if isinstance(outcome, LLMResponse):
        assert outcome.attempts == calls_made, retried
        for citation in outcome.citations:
            assert citation_problems(citation, outcome.content) == []
        return {
            "answer": True,
            "attempts": calls_made,
            "grounded": outcome.grounded_effective,
            "cited": bool(outcome.citations),
        }
    if isinstance(outcome, ProviderError):
        assert outcome.attempts == calls_made, retried
    if isinstance(outcome, GroundingValidationError):
        assert outcome.response is not None
        assert outcome.response.attempts == calls_made, retried
    return {
        "error": type(outcome).__name__,
        "reason": outcome.reason,
        "status_code": outcome.status_code,
        "attempts": calls_made,
    }


# A guard against a hang, not a measure: a cell takes seconds, but at load 50-78 on two cores the
# first cell of a worker once took over 20 s (importing an SDK alone took most of it).
@pytest.mark.timeout(CELL_TIMEOUT_S)
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("cell", CELLS, ids=[_cell_id(cell) for cell in CELLS])
def test_fault_cell(
    cell: dict[str, Any],
    call: str,
    router: UnifiedLLMAdapter,
    emulator: Emulator,
    sleeps: RecordedSleeps,
) -> None:
    """The cell's fault ends exactly as the table says, through route() and aroute() alike."""
    # A question of its own per cell and call: *N faults count attempts per identical request.
    question = (
        f"Which river runs through {_cell_id(cell)} ({call})? [[emulator:fault={cell['fault']}]]"
    )
    request = grounded_request(
        cell["vendor"], question, mode=cell["mode"], **cell.get("request", {})
    )
    emulator.clear_requests()
    sleeps.waits.clear()
    deadlines = FirstCallDeadline(cell.get("first_call_timeout_s"))
    with deadlines_chosen_by(deadlines), capture_logs() as events:
        if call == "route":
            outcome = _outcome(lambda: router.route(request))
        else:
            outcome = _outcome(lambda: asyncio.run(router.aroute(request)))
    assert deadlines.first_call_had_its_deadline()
    expected = dict(cell["expected"])
    waits = expected.pop("waits", None)
    retried = (
        f"retried after {[e['reason'] for e in events if e['event'] == 'provider_call_retrying']}"
    )
    assert _observed(outcome, len(emulator.requests), retried) == expected, retried
    assert len(sleeps.waits) == expected["attempts"] - 1
    if waits is not None:
        assert sleeps.waits == waits
