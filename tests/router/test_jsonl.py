"""The hostile-line reader: every line read, numbered and bounded; every parse failure one type."""

from __future__ import annotations

import io

import pytest

from router.text.jsonl import UnreadableLineError, loads, read_lines

POISON_LINES = {
    "nested 5,000 deep": "[" * 5_000 + "]" * 5_000,
    "nested 100,000 deep in an object": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "an integer of 5,000 digits": '{"request_id": ' + "7" * 5_000 + "}",
    "not JSON": "{not json",
    "cut short": '{"vendor": "openai", "mess',
    "not UTF-8": b'{"a": "\xff\xfe"}',
    "a NUL byte": b'{"a": 1}\x00',
    "a byte-order mark": "\ufeff{}",
}


@pytest.mark.parametrize("text", POISON_LINES.values(), ids=POISON_LINES.keys())
def test_every_parse_failure_is_one_exception_type(text: str | bytes) -> None:
    """Whatever stops json.loads (RecursionError, ValueError, ...) comes out as one type."""
    with pytest.raises(UnreadableLineError) as caught:
        loads(text)
    assert caught.value.args[0].startswith("not ")


def test_the_problem_is_said_in_bounded_words() -> None:
    """The message says what is wrong, briefly, however long the parser's own text is."""
    with pytest.raises(UnreadableLineError, match="nested too deeply"):
        loads(POISON_LINES["nested 5,000 deep"])
    with pytest.raises(UnreadableLineError) as caught:
        loads(POISON_LINES["an integer of 5,000 digits"])
    assert "4300 digits" in str(caught.value)
    assert len(str(caught.value)) <= 200


def test_values_of_any_kind_are_returned() -> None:
    """A line holding any JSON value is read, not only an object."""
    assert loads('{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}
    assert loads(b"7") == 7
    assert loads('"\\ud800"') == "\ud800"


def test_lines_are_numbered_with_their_offsets() -> None:
    """Every line, blank ones too, has its number, its end offset and whether it is complete."""
    lines = list(read_lines(io.BytesIO(b'{"a": 1}\n\n  \r\n{"b": 2}')))
    assert [line.number for line in lines] == [1, 2, 3, 4]
    assert [line.data for line in lines] == [b'{"a": 1}', b"", b"  \r", b'{"b": 2}']
    assert [line.end for line in lines] == [9, 10, 14, 22]
    assert [line.complete for line in lines] == [True, True, True, False]
    assert [line.blank for line in lines] == [False, True, True, False]


def test_a_line_past_the_bound_is_cut_and_skipped() -> None:
    """A long line yields its head and full size; the next line is read as usual."""
    text = b"x" * 10_000 + b"\n" + b'{"a": 1}\n' + b"y" * 5_000
    lines = list(read_lines(io.BytesIO(text), max_bytes=1_000))
    assert [(line.cut, len(line.data), line.size, line.complete) for line in lines] == [
        (True, 1_000, 10_000, True),
        (False, 8, 8, True),
        (True, 1_000, 5_000, False),
    ]
    assert [line.end for line in lines] == [10_001, 10_010, 15_010]
    assert not lines[0].blank


def test_a_line_exactly_at_the_bound_is_whole() -> None:
    """The bound counts the line's bytes, not its newline."""
    (line,) = read_lines(io.BytesIO(b"z" * 100 + b"\n"), max_bytes=100)
    assert (line.cut, line.size, line.complete) == (False, 100, True)
