"""The batch input reader: any line gives exactly one item, and no two items share an id."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from router.batch.fanout_lines import decode_request, encode_request
from router.batch.input import MAX_LINE_BYTES, BatchInput, BatchItem
from router.batch.output import error_row, row_text
from router.text.jsonl import loads
from support.hostile_lines import POISON_LINES, hostile_line, valid_request


def items_of(path: Path, lines: list[str | bytes]) -> list[BatchItem]:
    path.write_bytes(b"".join((x.encode() if isinstance(x, str) else x) + b"\n" for x in lines))
    return list(BatchInput(path))


def request_line(request_id: object = None, **fields: object) -> str:
    extra = {} if request_id is None else {"request_id": request_id}
    return json.dumps(valid_request(1, **extra, **fields))


@pytest.mark.parametrize("poison", POISON_LINES, ids=["nested 5,000 deep", "5,000 digits"])
def test_a_poison_line_is_one_error_item(poison: str, tmp_path: Path) -> None:
    """A line json.loads rejects with RecursionError or ValueError is an error, not a crash."""
    items = items_of(tmp_path / "in.jsonl", [request_line("x"), poison, request_line("y")])
    assert [item.request_id for item in items][::2] == ["x", "y"]
    assert items[1].error is not None
    assert items[1].error.message.startswith("line 2: not readable JSON")
    assert items[1].request_id.startswith("line2-")


def test_a_line_past_the_length_bound_is_one_error_item(tmp_path: Path) -> None:
    """An over-long line is refused by its size, and the lines after it are read as usual."""
    huge = '{"request_id": "huge", "metadata": "' + "x" * MAX_LINE_BYTES + '"}'
    items = items_of(tmp_path / "in.jsonl", [request_line("x"), huge, request_line("y")])
    assert [item.request_id for item in items][::2] == ["x", "y"]
    assert items[1].error is not None
    assert f"line 2: longer than {MAX_LINE_BYTES} bytes" in items[1].error.message
    assert items[1].request_id.startswith("line2-")


def test_a_request_that_cannot_be_serialised_is_one_error_item(tmp_path: Path) -> None:
    """A JSON schema nested past what pydantic serialises is refused at the line, not later."""
    deep: object = {"type": "string"}
    for _ in range(300):
        deep = {"type": "array", "items": deep}
    schema = {"type": "object", "properties": {"x": deep}}
    (item,) = items_of(tmp_path / "in.jsonl", [request_line("deep", json_schema=schema)])
    assert item.error is not None
    assert "cannot be serialised" in item.error.message
    assert item.request_id == "deep"


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_a_blank_request_id_counts_as_absent(blank: str, tmp_path: Path) -> None:
    """A blank id gets the derived id, and the request carries that same id."""
    (item,) = items_of(tmp_path / "in.jsonl", [request_line(blank)])
    assert item.request is not None
    assert item.request_id.startswith("line1-")
    assert item.request.request_id == item.request_id


def test_a_request_id_of_another_type_is_refused_under_the_derived_id(tmp_path: Path) -> None:
    """A numeric id is a validation error; its row goes under the derived id."""
    (item,) = items_of(tmp_path / "in.jsonl", [request_line(5)])
    assert item.error is not None
    assert item.error.field == "request_id"
    assert item.request_id.startswith("line1-")


def test_a_renamed_duplicate_never_takes_a_real_id(tmp_path: Path) -> None:
    """Lines a, a, 'a#line2': the duplicate is renamed around the real 'a#line2'."""
    items = items_of(tmp_path / "in.jsonl", [request_line(x) for x in ("a", "a", "a#line2")])
    assert [item.request_id for item in items] == ["a", "a#line2.2", "a#line2"]
    assert [item.request is not None for item in items] == [True, False, True]
    assert items[1].error is not None
    assert items[1].error.reason == "duplicate_request_id"
    assert "already used on line 1" in items[1].error.message


def test_a_real_id_before_the_duplicate_keeps_its_name(tmp_path: Path) -> None:
    """A real id earlier in the file than the duplicate it would clash with keeps its name."""
    lines = [request_line(x) for x in ("a#line3", "a", "a", "a#line3.2", "a")]
    ids = [item.request_id for item in items_of(tmp_path / "in.jsonl", lines)]
    assert ids == ["a#line3", "a", "a#line3.3", "a#line3.2", "a#line5"]


def test_a_given_id_equal_to_a_derived_one_is_a_duplicate(tmp_path: Path) -> None:
    """A given id that spells another line's derived id does not take that line's row."""
    path = tmp_path / "in.jsonl"
    derived = items_of(path, [request_line()])[0].request_id
    items = items_of(path, [request_line(), request_line(derived)])
    assert items[0].request_id == derived
    assert items[1].request_id == f"{derived}#line2"


def test_the_same_file_gives_the_same_ids(tmp_path: Path) -> None:
    """Ids depend only on the file: a resumed run finds the same ones."""
    rng = random.Random(7)
    lines: list[str | bytes] = [hostile_line(rng, number) for number in range(1, 201)]
    first = items_of(tmp_path / "in.jsonl", lines)
    assert [item.request_id for item in first] == [
        item.request_id for item in BatchInput(tmp_path / "in.jsonl")
    ]


def check_hostile_file(path: Path, lines: list[bytes]) -> int:
    """Write ``lines``, read them back, and check one item per non-blank line; return the count."""
    items = items_of(path, list(lines))
    expected_lines = [number for number, data in enumerate(lines, start=1) if data.strip()]
    assert [item.line for item in items] == expected_lines
    assert BatchInput(path).total == len(items)
    assert len({item.request_id for item in items}) == len(items)
    for item in items:
        assert (item.request is None) != (item.error is None)
        if item.request is not None:
            assert item.request.request_id == item.request_id
            assert decode_request(*encode_request(item.request)) == item.request
        else:
            assert item.error is not None
            row = loads(row_text(error_row(item.line, item.request_id, item.error)))
            assert row["request_id"] == item.request_id
    return len(lines)


LINES_PER_EXAMPLE = 100


@pytest.mark.parametrize(
    "examples",
    [pytest.param(5, id="500-lines"), pytest.param(50, id="5000-lines", marks=pytest.mark.slow)],
)
def test_hostile_lines_each_give_exactly_one_item(examples: int, tmp_path: Path) -> None:
    """Generated hostile lines (100 per example): one item each, ids unique, rows writable."""
    checked: list[int] = []

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(seed=st.integers(min_value=0, max_value=2**64 - 1))
    def check(seed: int) -> None:
        rng = random.Random(seed)
        lines = [hostile_line(rng, number) for number in range(1, LINES_PER_EXAMPLE + 1)]
        checked.append(check_hostile_file(tmp_path / "in.jsonl", lines))

    check()
    assert sum(checked) == examples * LINES_PER_EXAMPLE


def test_a_duplicate_far_down_a_long_file_is_caught(tmp_path: Path) -> None:
    """Every repeat in 20,000 lines is an error row naming the first line, whatever the gap."""
    count = 20_000
    lines = [request_line(f"r{n}") for n in range(count)]
    lines += [request_line("r0"), request_line(f"r{count - 1}"), request_line("r0")]
    items = items_of(tmp_path / "in.jsonl", lines)
    assert [item.error is None for item in items] == [True] * count + [False] * 3
    repeats = items[count:]
    assert [item.request_id for item in repeats] == [
        f"r0#line{count + 1}",
        f"r{count - 1}#line{count + 2}",
        f"r0#line{count + 3}",
    ]
    assert [item.error.message for item in repeats if item.error is not None] == [
        f"line {count + 1}: request_id 'r0' already used on line 1",
        f"line {count + 2}: request_id 'r{count - 1}' already used on line {count}",
        f"line {count + 3}: request_id 'r0' already used on line 1",
    ]
