"""Logging: structlog set-up for the CLI, forensic grounding events, and secret redaction.

Library modules only emit events (``structlog.get_logger(__name__)``); they never configure
structlog. The CLI calls :func:`configure_logging`. Applications that configure structlog
themselves can put :func:`redact_secrets` and :func:`cap_field_sizes` in their processor chain.
Redaction itself is :mod:`router.redaction` (its names are re-exported here), which every other
way out of the router uses too.

Forensic events (which metadata source a citation came from, how its domain was derived, what
was dropped and why) are built only while :func:`grounding_debug_enabled` is true, so they cost
nothing on the hot path otherwise. The router switches them on per call from
``RouterSettings.debug_grounding`` (``DEBUG_GROUNDING=true``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, TextIO, cast

import structlog

from router.call_limits import current_limits
from router.text.redaction import REDACTED, redact_text, redacted_prefix, register_secret
from router.text.terminal import json_for_terminal, terminal_safe_fields

__all__ = [
    "MAX_LOG_FIELD_CHARS",
    "REDACTED",
    "CallLogContext",
    "cap_field_sizes",
    "cli_logging_options",
    "configure_logging",
    "grounding_debug",
    "grounding_debug_enabled",
    "redact_secrets",
    "redact_text",
    "redacted_prefix",
    "register_secret",
]

# A log field longer than this is cut: a 20 MB provider reply must not become a 20 MB log line.
MAX_LOG_FIELD_CHARS = 2_000

_GROUNDING_DEBUG: ContextVar[bool] = ContextVar("grounding_debug", default=False)


def grounding_debug_enabled() -> bool:
    """Whether forensic citation-extraction events should be emitted in this context.

    Asked once per event; within a provider call, the call's ``max_debug_events`` bounds how
    often it says yes (a reply with 200,000 sources would log tens of megabytes), and the router
    says when it cut (``forensic_events_cut``).
    """
    if not _GROUNDING_DEBUG.get():
        return False
    limits = current_limits()
    if limits is None or limits.max_debug_events is None:
        return True
    limits.debug_events += 1
    return limits.debug_events <= limits.max_debug_events


class CallLogContext:
    """The forensic switch and the log fields of one routed call, or one step of a stream.

    Inside the block, forensic events are on when ``debug`` is, and every structlog event
    carries ``fields`` (structlog context variables, task- and thread-local); leaving restores
    both as they were. A class rather than a generator: it is entered on every call, where a
    generator-based manager (and structlog's ``bound_contextvars``, which reads the whole
    context to restore it) cost more than the rest of the call's bookkeeping.
    """

    __slots__ = ("_debug", "_fields", "_tokens")

    def __init__(self, debug: bool, **fields: Any) -> None:
        self._debug = debug
        self._fields = fields
        self._tokens: tuple[Token[bool], Mapping[str, Token[Any]]] | None = None

    def __enter__(self) -> None:
        debug = _GROUNDING_DEBUG.set(self._debug)
        self._tokens = (debug, structlog.contextvars.bind_contextvars(**self._fields))

    def __exit__(self, *_: object) -> None:
        assert self._tokens is not None
        debug, bound = self._tokens
        self._tokens = None
        structlog.contextvars.reset_contextvars(**bound)
        _GROUNDING_DEBUG.reset(debug)


@contextmanager
def grounding_debug(enabled: bool) -> Iterator[None]:
    """Switch forensic events on or off inside the block (task- and thread-local)."""
    token = _GROUNDING_DEBUG.set(enabled)
    try:
        yield
    finally:
        _GROUNDING_DEBUG.reset(token)


# Keys whose values are secrets whatever they hold (compared lowercased, '-' read as '_').
_SECRET_KEYS = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "api_key",
        "apikey",
        "x_api_key",
        "x_goog_api_key",
        "openai_api_key",
        "access_token",
        "vertex_access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "password",
        "secret",
        "token",
    }
)


def _redact_value(key: str | None, value: Any, depth: int = 0) -> Any:
    if key is not None and key.lower().replace("-", "_") in _SECRET_KEYS and value:
        return REDACTED
    if depth > 8:
        return value
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {k: _redact_value(str(k), v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(None, v, depth + 1) for v in value]
    if isinstance(value, BaseException):
        return redact_text(str(value))
    return value


def redact_secrets(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: remove API keys, bearer tokens and Authorization headers."""
    for key in list(event_dict):
        event_dict[key] = _redact_value(key, event_dict[key])
    return event_dict


def _cap(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str) and len(value) > MAX_LOG_FIELD_CHARS:
        return f"{value[:MAX_LOG_FIELD_CHARS]}… [{len(value) - MAX_LOG_FIELD_CHARS} chars cut]"
    if depth > 4:
        return value
    if isinstance(value, Mapping):
        return {k: _cap(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cap(v, depth + 1) for v in value[:50]]
    return value


def cap_field_sizes(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: cut long strings and long lists so one event stays a readable line."""
    for key in list(event_dict):
        event_dict[key] = _cap(event_dict[key])
    return event_dict


def _fields_for_terminal(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> Mapping[str, Any]:
    return terminal_safe_fields(event_dict)


def _json_line_for_terminal(_logger: Any, _method: str, line: Any) -> Any:
    return json_for_terminal(line) if isinstance(line, str) else line


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is now, so a progress bar that redirects it still works."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


# The options of the last configure_logging() without a stream of its own, so batch worker
# processes (spawned: they start with structlog's defaults) can log the way the CLI does.
_cli_options: dict[str, Any] | None = None


def cli_logging_options() -> dict[str, Any] | None:
    """``configure_logging``'s options as the CLI gave them (stderr output), or None."""
    return dict(_cli_options) if _cli_options is not None else None


def configure_logging(
    *,
    json_lines: bool = False,
    level: str = "info",
    debug_grounding: bool = False,
    stream: TextIO | None = None,
) -> None:
    """Configure structlog for the CLI: console for people, or JSON lines with ``json_lines``.

    ``debug_grounding`` lowers the level to debug so the forensic events show. The batch's
    worker processes are configured the same way (see :func:`cli_logging_options`).
    """
    global _cli_options  # noqa: PLW0603 - the one record of how this process logs
    _cli_options = (
        {"json_lines": json_lines, "level": level, "debug_grounding": debug_grounding}
        if stream is None
        else None
    )
    numeric_level = logging.DEBUG if debug_grounding else logging.getLevelName(level.upper())
    # The last steps make the line safe for a terminal: the values a console line prints raw are
    # cleaned before rendering; a JSON line has what JSON leaves raw escaped after it.
    rendering: list[structlog.typing.Processor]
    if json_lines:
        rendering = [structlog.processors.JSONRenderer(), _json_line_for_terminal]
    else:
        rendering = [_fields_for_terminal, structlog.dev.ConsoleRenderer(colors=False)]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            cap_field_sizes,
            redact_secrets,
            *rendering,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric_level),
        # One write per event, newline included (print() makes two): the worker processes of a
        # batch share this stderr, and two half-lines from two processes would merge into one.
        logger_factory=structlog.WriteLoggerFactory(file=stream or cast(TextIO, _CurrentStderr())),
        cache_logger_on_first_use=False,
    )
