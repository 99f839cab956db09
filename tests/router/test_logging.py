"""Secret redaction, field caps and forensic switches of router.logging."""

from __future__ import annotations

import io
import json
import pickle
import sys

import pytest

from router.logging import (
    MAX_LOG_FIELD_CHARS,
    REDACTED,
    cli_logging_options,
    configure_logging,
    get_logger,
    grounding_debug,
    grounding_debug_enabled,
    redact_secrets,
    redacted_prefix,
    register_secret,
)
from support.hostile import HOSTILE_TEXTS, unsafe_characters


def _render(json_lines: bool = True, **event: object) -> str:
    stream = io.StringIO()
    configure_logging(json_lines=json_lines, stream=stream)
    get_logger("router.test").warning("provider_call_failed", **event)
    return stream.getvalue()


def test_key_and_authorization_header_never_printed() -> None:
    """An event carrying an API key and an Authorization header prints neither."""
    key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx"
    line = _render(
        headers={
            "Authorization": f"Bearer {key}",
            "x-goog-api-key": "AIzaSyA-1234567890abcdefghijklmnopqrstu",
        },
        detail=f"request failed with Authorization: Bearer {key}",
        api_key=key,
    )
    assert key not in line
    assert "AIzaSyA" not in line
    assert REDACTED in line
    assert json.loads(line)["event"] == "provider_call_failed"


def test_console_renderer_redacts_too() -> None:
    """The people-facing console output is redacted like the JSON lines."""
    line = _render(json_lines=False, note="token ya29.a0AfH6SMBexampleexampleexample in text")
    assert "ya29.a0AfH6SMB" not in line


def test_registered_secret_is_redacted_anywhere() -> None:
    """A secret registered from settings is removed even when it has no known shape."""
    register_secret("vertex-static-token-42")
    processed = redact_secrets(None, "info", {"event": "x", "note": "tok=vertex-static-token-42!"})
    assert processed["note"] == f"tok={REDACTED}!"


def test_harmless_token_counts_stay() -> None:
    """Usage fields such as input_tokens are not mistaken for secrets."""
    processed = redact_secrets(None, "info", {"event": "x", "input_tokens": 12, "token_count": 3})
    assert processed["input_tokens"] == 12
    assert processed["token_count"] == 3


def test_huge_fields_are_capped() -> None:
    """A megabyte-long field becomes a bounded line."""
    line = _render(title="x" * 1_000_000)
    assert len(line) < MAX_LOG_FIELD_CHARS + 500
    assert "chars cut" in line


def test_grounding_debug_is_scoped() -> None:
    """The forensic switch holds inside the block only."""
    assert not grounding_debug_enabled()
    with grounding_debug(True):
        assert grounding_debug_enabled()
    assert not grounding_debug_enabled()


def test_redacted_prefix_removes_a_secret_the_cut_would_split() -> None:
    """A secret that starts inside the shown prefix is redacted before the text is cut."""
    secret = "plain-registered-secret-0042"
    register_secret(secret)
    text = f"proxy echo: {secret} and then a long tail"
    shown = redacted_prefix(text, 20)
    assert shown == f"proxy echo: {REDACTED}"[:20]
    assert "plain-re" not in shown


def _rendered_hostile(json_lines: bool) -> str:
    stream = io.StringIO()
    configure_logging(json_lines=json_lines, stream=stream, debug_grounding=True)
    log = get_logger("router.test")
    for text in HOSTILE_TEXTS:
        log.warning(f"[CITATIONS] OpenAI: 1 tool calls. First output item: {text}", model=text)
        log.debug("vertex_reply_mapped", response_id=text, finish_reason=text)
        log.info("nested", item={text: [text, {"deep": text}]}, items=(text,))
    return stream.getvalue()


@pytest.mark.parametrize("json_lines", [False, True], ids=["console", "json"])
def test_log_lines_cannot_drive_a_terminal(json_lines: bool) -> None:
    """Event names, field names and values, nested or not, reach stderr without escapes."""
    printed = _rendered_hostile(json_lines)
    assert unsafe_characters(printed) == []
    assert "Official source" in printed


def test_json_log_lines_keep_the_exact_values() -> None:
    """JSON lines escape what a terminal would act on and still read back as the same text."""
    lines = [json.loads(line) for line in _rendered_hostile(True).splitlines()]
    models = [line["model"] for line in lines if "model" in line]
    assert models == HOSTILE_TEXTS


class RecordedWrites(io.StringIO):
    """A stream that keeps each write call apart."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def write(self, text: str) -> int:
        self.calls.append(text)
        return super().write(text)


@pytest.mark.parametrize("json_lines", [False, True], ids=["console", "json"])
def test_each_event_is_one_write_with_its_newline(json_lines: bool) -> None:
    """Processes sharing a stderr (batch workers) cannot merge two events into one line."""
    stream = RecordedWrites()
    configure_logging(json_lines=json_lines, stream=stream)
    get_logger("router.test").warning("first_event", n=1)
    get_logger("router.test").warning("second_event", n=2)
    assert len(stream.calls) == 2
    assert all(call.endswith("\n") and call.count("\n") == 1 for call in stream.calls)


def test_the_options_are_recorded_for_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """configure_logging on stderr keeps its options as picklable data; on a stream, none."""
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    configure_logging(json_lines=True, level="error")
    options = cli_logging_options()
    assert options == {"json_lines": True, "level": "error", "debug_grounding": False}
    assert pickle.loads(pickle.dumps(options)) == options
    configure_logging(json_lines=True, stream=io.StringIO())  # a stream cannot cross processes
    assert cli_logging_options() is None
