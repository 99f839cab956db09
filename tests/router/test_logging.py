"""Secret redaction, field caps and forensic switches of router.logging."""

from __future__ import annotations

import io
import json

import structlog

from router.logging import (
    MAX_LOG_FIELD_CHARS,
    REDACTED,
    configure_logging,
    grounding_debug,
    grounding_debug_enabled,
    redact_secrets,
    redacted_prefix,
    register_secret,
)


def _render(json_lines: bool = True, **event: object) -> str:
    stream = io.StringIO()
    configure_logging(json_lines=json_lines, stream=stream)
    try:
        structlog.get_logger("test").warning("provider_call_failed", **event)
    finally:
        structlog.reset_defaults()
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
