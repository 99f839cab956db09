"""Logging: library events through the standard ``logging`` module, the CLI's set-up, forensic
grounding events, and secret redaction.

The library is quiet unless the application asks it to log, as openai, httpx and anthropic are.
Library modules emit structlog events through :func:`get_logger`, a structlog logger over the
standard ``logging`` logger of the module's name (``router.*``, ``adapters.*``, ``als.*``): the
event is cut to size and redacted, then handed to ``logging`` with the event name and its
fields in the message (``route_failed vendor='openai' ...``) and the fields themselves in the
record's ``grounding_router`` attribute, for structured handlers. The packages' top loggers
carry only a ``NullHandler``, so nothing reaches stdout or stderr until the application
configures ``logging`` (``logging.basicConfig(level="INFO")`` shows them). Structlog's own
global configuration is never touched, so an application's structlog set-up stays its own.

The CLI calls :func:`configure_logging`: one handler on stderr for those loggers, console lines
for people or JSON lines with ``--log-json``. Redaction itself is :mod:`router.text.redaction` (its
names are re-exported here), which every other way out of the router uses too.

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
    "LIBRARY_LOGGERS",
    "MAX_LOG_FIELD_CHARS",
    "REDACTED",
    "CallLogContext",
    "cap_field_sizes",
    "cli_logging_options",
    "configure_logging",
    "get_logger",
    "grounding_debug",
    "grounding_debug_enabled",
    "redact_secrets",
    "redact_text",
    "redacted_prefix",
    "register_secret",
]

# A log field longer than this is cut: a 20 MB provider reply must not become a 20 MB log line.
MAX_LOG_FIELD_CHARS = 2_000

LIBRARY_LOGGERS = ("router", "adapters", "als")
"""The top ``logging`` loggers of the library's events; each has only a ``NullHandler``."""

# The record attribute that carries an event's fields, for structured handlers.
_FIELDS_ATTRIBUTE = "grounding_router"

for _name in LIBRARY_LOGGERS:
    logging.getLogger(_name).addHandler(logging.NullHandler())

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


def _message(event_dict: Mapping[str, Any]) -> str:
    fields = " ".join(
        f"{key}={value!r}" for key, value in event_dict.items() if key not in ("event", "level")
    )
    event = str(event_dict.get("event", ""))
    return f"{event} {fields}" if fields else event


def _hand_to_logging(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Last library processor: the arguments of the ``logging`` call that carries the event."""
    fields = dict(event_dict)
    return (_message(fields),), {"extra": {_FIELDS_ATTRIBUTE: fields}}


# The library's processor chain. A list object of its own (never structlog's global one), so
# the application's structlog configuration and ours cannot clobber each other; tests swap
# its contents to capture events (``support.logs.capture_logs``).
LIBRARY_PROCESSORS: list[structlog.typing.Processor] = [
    structlog.stdlib.filter_by_level,
    structlog.contextvars.merge_contextvars,
    structlog.processors.format_exc_info,
    cap_field_sizes,
    redact_secrets,
    _hand_to_logging,
]


def get_logger(name: str) -> Any:
    """The structlog logger of a library module: events go to ``logging.getLogger(name)``."""
    return structlog.wrap_logger(
        logging.getLogger(name),
        processors=LIBRARY_PROCESSORS,
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def _event_of_record(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """A library record's own fields; another library's record keeps its message as the event."""
    record: logging.LogRecord | None = event_dict.get("_record")
    fields = getattr(record, _FIELDS_ATTRIBUTE, None) if record is not None else None
    if isinstance(fields, Mapping):
        event_dict.update(fields)
    elif record is not None:
        event_dict["logger"] = record.name
    if record is not None:
        event_dict.setdefault("level", record.levelname.lower())
    return event_dict


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is now, so a progress bar that redirects it still works."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


class _OneWriteHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """One ``write`` per event, newline included: the worker processes of a batch share this
    stderr, and two half-lines from two processes would merge into one."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + self.terminator
            self.stream.write(line)
            self.flush()
        except Exception:  # logging.Handler's own contract: a failed write is reported, not raised
            self.handleError(record)


# The options of the last configure_logging() without a stream of its own, so batch worker
# processes (spawned: they start with logging unconfigured) can log the way the CLI does.
_cli_options: dict[str, Any] | None = None
_cli_handler: logging.Handler | None = None


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
    """Show the library's events on stderr (or ``stream``): console lines, or JSON lines.

    For the CLI and the batch's worker processes (see :func:`cli_logging_options`); an
    application configures ``logging`` its own way instead. ``debug_grounding`` lowers the level
    to debug so the forensic events show. Calling it again replaces the handler it added.
    """
    global _cli_options, _cli_handler  # noqa: PLW0603 - the one record of how this process logs
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
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[_event_of_record],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            cap_field_sizes,
            redact_secrets,
            *rendering,
        ],
    )
    handler = _OneWriteHandler(stream or cast(TextIO, _CurrentStderr()))
    handler.setFormatter(formatter)
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        if _cli_handler is not None:
            logger.removeHandler(_cli_handler)
        logger.addHandler(handler)
        logger.setLevel(numeric_level)
        logger.propagate = False  # shown once, here, whatever the root logger does
    _cli_handler = handler
