"""End-to-end fuzz: mutated recorded bodies through the emulator, the real SDKs and route().

Every case serves one mutated recorded body of the kind the vendor's API answers with
(``support.recorded.files_for_vendor``; streams as their final state; a few cases serve a
mutated raw stream where JSON is expected) with ``Emulator.enqueue_reply`` and routes one
grounded request to it.
``route()`` must return an ``LLMResponse`` whose every citation satisfies the schema and which
serialises to JSON (as the CLI and batch rows need), or raise a ``RouterError`` subclass that
classifies the failure (never the bare ``RouterError`` of an unexpected exception).

2,000 cases per vendor run by default, 20,000 with ``--runslow``. Cases are seeded
(``"{SEED}:{vendor}:{index}"``); a failure lists each failing case's seed, source body and
mutations, and ``support.mutations.mutated_case(CORPORA[vendor], seed)`` rebuilds it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator

import pytest

from router.emulator import Emulator
from router.errors import GroundingValidationError, RouterError
from router.router import UnifiedLLMAdapter
from router.types import LLMResponse
from support.citations import citation_problems
from support.emulated import ANSWER_TIMEOUT_S, VENDORS, emulator_settings, grounded_request
from support.mutations import Corpus, mutated_case
from support.recorded import files_for_vendor, load_final_body

SEED = "hardening-1"
CASES = 2_000
LONG_RUN_CASES = 20_000
REPORTED_FAILURES = 20


def _corpus(vendor: str) -> Corpus:
    final_bodies = files_for_vendor(vendor)
    streams = [path for path in final_bodies if path.name.endswith(".sse.txt")]
    return Corpus(
        names=[path.name for path in final_bodies],
        bodies=[json.dumps(load_final_body(path)) for path in final_bodies],
        streams=[(path.name, path.read_text(encoding="utf-8")) for path in streams],
    )


CORPORA = {vendor: _corpus(vendor) for vendor in VENDORS}


@pytest.fixture(scope="module")
def router(emulator: Emulator) -> Iterator[UnifiedLLMAdapter]:
    # One attempt: a retry would be answered by the emulator's own synthesis, not the case.
    with UnifiedLLMAdapter(
        emulator_settings(emulator, max_attempts=1, timeout_s=ANSWER_TIMEOUT_S)
    ) as built:
        yield built


def _response_problems(response: LLMResponse, vendor: str) -> list[str]:
    problems = [
        f"citation {number}: {problem}"
        for number, citation in enumerate(response.citations, start=1)
        for problem in citation_problems(citation, response.content, provider=vendor)
    ]
    if response.metadata.get("citations") != response.citations:
        problems.append("metadata['citations'] differs from citations")
    try:
        response.model_dump_json()
    except Exception as exc:  # the CLI's --json-output and every batch row need this
        problems.append(f"the response does not serialise: {type(exc).__name__}: {exc}")
    return problems


def _error_problems(error: RouterError, vendor: str) -> list[str]:
    problems: list[str] = []
    if type(error) is RouterError:  # an exception the router did not expect, wrapped
        problems.append(f"unclassified: {error.message:.300}")
    try:
        json.dumps(error.to_dict())
    except (TypeError, ValueError) as exc:
        problems.append(f"to_dict() is not JSON: {exc}")
    if isinstance(error, GroundingValidationError) and error.response is not None:
        problems.extend(_response_problems(error.response, vendor))
    return problems


def run_cases(
    vendor: str, count: int, emulator: Emulator, router: UnifiedLLMAdapter
) -> tuple[Counter[str], list[str]]:
    """Route ``count`` seeded cases; the outcome counts and a line per failing case."""
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    for index in range(count):
        case = mutated_case(CORPORA[vendor], f"{SEED}:{vendor}:{index}")
        mode = "REQUIRED" if index % 3 == 0 else "AUTO"
        request = grounded_request(vendor, f"fuzz case {index}", mode=mode)
        emulator.clear_requests()
        emulator.enqueue_reply(vendor, case.body, content_type=case.content_type)
        try:
            response = router.route(request)
        except RouterError as error:
            outcomes[type(error).__name__] += 1
            problems = _error_problems(error, vendor)
        except Exception as exc:  # what the fuzz exists to find
            outcomes["escaped"] += 1
            problems = [f"{type(exc).__name__} escaped route(): {exc!r:.300}"]
        else:
            outcomes["answer" if response.citations else "answer without citations"] += 1
            problems = _response_problems(response, vendor)
        if len(emulator.requests) != 1:
            problems.append(f"{len(emulator.requests)} requests reached the emulator, not 1")
        if problems:
            failures.append(f"{case.describe()} mode={mode}: {problems[:3]}")
    return outcomes, failures


def _check(vendor: str, count: int, emulator: Emulator, router: UnifiedLLMAdapter) -> None:
    outcomes, failures = run_cases(vendor, count, emulator, router)
    assert not failures, (
        f"{len(failures)} of {count} cases failed ({dict(outcomes)}):\n"
        + "\n".join(failures[:REPORTED_FAILURES])
    )
    # The fuzz must reach the extractors, not stop at the transport: many cases are answered.
    assert outcomes["answer"] >= count // 4, dict(outcomes)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("vendor", VENDORS)
def test_mutated_replies_give_valid_responses_or_router_errors(
    vendor: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """2,000 mutated replies per vendor: a valid LLMResponse or a RouterError, nothing else."""
    _check(vendor, CASES, emulator, router)


@pytest.mark.slow
@pytest.mark.timeout(3_000)
@pytest.mark.parametrize("vendor", VENDORS)
def test_mutated_replies_long_run(
    vendor: str, emulator: Emulator, router: UnifiedLLMAdapter
) -> None:
    """The long run (--runslow): 20,000 mutated replies per vendor."""
    _check(vendor, LONG_RUN_CASES, emulator, router)
