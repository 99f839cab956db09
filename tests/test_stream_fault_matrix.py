"""Every emulator fault on a stream, for every streaming vendor (the stream fault matrix).

The table is ``tests/data/stream_fault_matrix.json``. A fault before the first event is retried
like a route() call; a fault after it is raised with what was delivered; nothing outside the
RouterError tree leaves the stream. The table is the same for every vendor: a provider that
streams behaves like the others (a cell's ``reasons`` name a provider's own reason for the same
failure, such as Anthropic's ``overloaded`` for a 529).

Cells that end at a deadline give the request a ``timeout_s`` of 2 s, with a fault that cannot
answer before it however late the deadline fires (a hang, a 10 s delay). A cell that recovers
after a deadline gives its first call a deadline of its own (``first_call_timeout_s``, 2 s) and
the retry the request's 15 s, so the answered retry never races a short deadline; the others
have 15 s. The non-stream matrix's docstring says why these margins hold on a busy machine.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router.call_limits import deadlines_chosen_by
from router.emulator import FAULT_KINDS, Emulator, FaultSpec
from router.errors import RouterError
from router.router import UnifiedLLMAdapter
from router.streaming.events import Completed
from support.deadlines import FirstCallDeadline
from support.emulated import emulator_settings
from support.sleeps import RecordedSleeps

MATRIX: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "stream_fault_matrix.json").read_text(encoding="utf-8")
)
STREAMING = [row.vendor for row in PROVIDERS.values() if row.capabilities.streaming]
CELLS = [
    pytest.param(cell, vendor, id=f"{cell['fault']}-{vendor}")
    for cell in MATRIX["cells"]
    for vendor in STREAMING
]


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    sleeps = RecordedSleeps()
    settings = emulator_settings(emulator, **MATRIX["settings"])
    with UnifiedLLMAdapter(settings, sleep=sleeps, async_sleep=sleeps.asleep) as built:
        # One plain call per vendor first: a cell's short timeout is for its fault, not for
        # creating the vendor's first client (which took longer on a loaded machine).
        for vendor in STREAMING:
            built.route({**_plain(vendor, "Which bridge is oldest?"), "timeout_s": 30})
        yield built


def _plain(vendor: str, question: str) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": PROVIDERS[vendor].default_model,  # type: ignore[index]
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
    }


def test_every_fault_kind_has_a_cell() -> None:
    """The table covers every fault the emulator knows."""
    kinds = {FaultSpec.parse(cell["fault"]).kind for cell in MATRIX["cells"]}
    assert kinds == set(FAULT_KINDS)


@pytest.mark.timeout(90)  # a hang guard: at load 50-78 one cell of the route matrix took 20 s
@pytest.mark.parametrize(("cell", "vendor"), CELLS)
def test_stream_fault_cell(
    cell: dict[str, Any], vendor: str, router: UnifiedLLMAdapter, emulator: Emulator
) -> None:
    """The stream ends as the table says: an answer after N calls, or one RouterError."""
    question = (
        f"Which bridge is oldest in {cell['fault']} {vendor}? [[emulator:fault={cell['fault']}]]"
    )
    request = {**_plain(vendor, question), **cell.get("request", {})}
    emulator.clear_requests()
    observed: dict[str, Any]
    deadlines = FirstCallDeadline(cell.get("first_call_timeout_s"))
    try:
        with deadlines_chosen_by(deadlines):
            events = list(router.stream(request))
    except RouterError as error:
        observed = {"error": type(error).__name__, "reason": error.reason}
    except Exception as exc:  # nothing else may leave a stream
        pytest.fail(f"{type(exc).__name__} escaped the stream: {exc}")
    else:
        completed = events[-1]
        assert isinstance(completed, Completed)
        assert completed.response.attempts == len(emulator.requests)
        observed = {"answer": True, "cited": bool(completed.response.citations)}
    observed["attempts"] = len(emulator.requests)
    assert deadlines.first_call_had_its_deadline()
    expected = dict(cell["expected"])
    if vendor in cell.get("reasons", {}):  # a provider's own name for the same failure
        expected["reason"] = cell["reasons"][vendor]
    assert observed == expected
