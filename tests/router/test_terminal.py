"""terminal_safe, json_for_terminal and show_warning: provider text that cannot drive a terminal."""

from __future__ import annotations

import io
import json

import pytest

from router.text.terminal import WARNING_CHARS, json_for_terminal, show_warning, terminal_safe
from support.hostile import HOSTILE_TEXTS, unsafe_characters


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_terminal_safe_leaves_nothing_a_terminal_acts_on(text: str) -> None:
    """Every hostile text comes out without escapes, controls, bidi overrides or surrogates."""
    assert unsafe_characters(terminal_safe(text)) == []


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_json_for_terminal_is_safe_and_exact(text: str) -> None:
    """JSON output escapes what JSON leaves raw, and still reads back as the same value."""
    printed = json_for_terminal(json.dumps({"title": text}, ensure_ascii=False))
    assert unsafe_characters(printed) == []
    assert json.loads(printed) == {"title": text}


def test_show_warning_prints_one_bounded_safe_line() -> None:
    """A warning quoting a huge hostile value prints as one short, clean line."""
    stream = io.StringIO()
    message = UserWarning(HOSTILE_TEXTS[3] * 1_000 + " is not a valid FinishReason")
    show_warning(message, UserWarning, "_common.py", 707, file=stream)
    printed = stream.getvalue()
    assert printed.count("\n") == 1
    assert len(printed) < WARNING_CHARS + 100
    assert unsafe_characters(printed) == []
    assert printed.startswith("_common.py:707: UserWarning: Official source")
