"""A batch input whose every line has a known outcome and a known number of provider calls.

Each line carries its fault as an emulator directive, so the expected row of every request_id,
and how many calls the emulator must see for it, are known before the run. Per 20 lines: two
429s answered on the retry, one REQUIRED request whose model skips the search (``no_search``),
one that searches but cites nothing (``no_citations``), one 500 on every attempt; per 50 lines
one malformed line and one line without a request_id (both get ids derived from the line); per
100 lines one line repeating the previous line's request_id and one whose id holds a lone
surrogate (refused as invalid). The rest are plain grounded answers.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.batch.input import derive_request_id

__all__ = ["Planned", "check_rows", "outcome_of", "planned_calls", "read_rows", "write_plan"]

MAX_ATTEMPTS = 3  # the settings of these suites; a 500 on every attempt is tried this often


@dataclass(frozen=True)
class Planned:
    """The outcome a line's row must show, and the provider calls its request costs."""

    outcome: str
    calls: int


def _line(number: int, salt: str) -> tuple[str | None, str, Planned]:
    """(request_id, JSONL line, plan) of input line ``number`` (0-based); id None if derived."""
    vendor = "openai" if (number // 20) % 2 else "vertex"
    request_id: str | None = f"{salt}-{number:05d}"
    fault, planned = "", Planned("ok", 1)
    slot = number % 20
    if slot in (1, 2):
        fault, planned = "[[emulator:fault=429:0*1]]", Planned("ok", 2)
    elif slot == 3:
        fault, planned = "[[emulator:fault=no_search]]", Planned("not_invoked", 1)
    elif slot == 4:
        fault, planned = "[[emulator:fault=no_citations]]", Planned("no_citations", 1)
    elif slot == 5:
        fault, planned = "[[emulator:fault=500]]", Planned("ProviderTransientError", MAX_ATTEMPTS)
    if number % 50 == 49:
        return None, '{"request_id": "' + str(request_id) + '", "vendor": ', Planned("bad", 0)
    if number % 100 == 77:
        request_id = f"{salt}-{number - 1:05d}"
        planned = Planned("duplicate_request_id", 0)
    if number % 100 == 33:  # an id no Arrow string can hold: refused, and still its one row
        request_id = f"{salt}-\ud800-{number:05d}"
        planned = Planned("bad", 0)
    question = f"What happened in {salt} town {number}? {fault}"
    request: dict[str, Any] = {
        "request_id": request_id,
        "vendor": vendor,
        "model": "gpt-5" if vendor == "openai" else "gemini-2.5-flash",
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
        "grounding_mode": "REQUIRED",
        "user_location": {"country": "DE" if number % 3 else "GB"},
    }
    if number % 50 == 25:
        del request["request_id"]
        request_id = None
    return request_id, json.dumps(request), planned


def write_plan(path: Path, size: int, *, salt: str) -> dict[str, Planned]:
    """Write ``size`` planned lines to ``path``; return the plan by the request_id of each row.

    ``salt`` makes the prompts unique to one test: the emulator counts ``*N`` per request body.
    """
    plan: dict[str, Planned] = {}
    with path.open("w") as handle:
        for number in range(size):
            request_id, line, planned = _line(number, salt)
            handle.write(line + "\n")
            line_number = number + 1
            if planned.outcome == "duplicate_request_id":
                request_id = f"{request_id}#line{line_number}"
            plan[request_id or derive_request_id(line_number, line)] = planned
    return plan


def read_rows(output: Path) -> list[dict[str, Any]]:
    """The rows of a batch output file, or of every shard of a shard directory."""
    files = sorted(output.glob("*.jsonl")) if output.is_dir() else [output]
    return [json.loads(line) for file in files for line in file.read_text().splitlines()]


def outcome_of(row: dict[str, Any]) -> str:
    if row["ok"]:
        return "ok"
    error = row["error"]
    if error["type"] == "RequestValidationError":
        return "duplicate_request_id" if error["reason"] == "duplicate_request_id" else "bad"
    if error["type"] == "GroundingRequiredFailedError":
        return str(error["reason"])
    return str(error["type"])


def check_rows(rows: list[dict[str, Any]], plan: dict[str, Planned]) -> None:
    """Exactly one row per planned request_id, none else, each with its planned outcome."""
    counts = Counter(row["request_id"] for row in rows)
    assert [request_id for request_id, n in counts.items() if n > 1] == []
    assert set(counts) == set(plan)
    assert {row["request_id"]: outcome_of(row) for row in rows} == {
        request_id: planned.outcome for request_id, planned in plan.items()
    }


def planned_calls(plan: dict[str, Planned]) -> int:
    """The provider calls a run of the whole plan makes: one per request plus the retries."""
    return sum(planned.calls for planned in plan.values())
