"""Sentinel secrets for the whole test run, and the watch that fails any test leaking them.

``SENTINEL_ENVIRONMENT`` is put into ``os.environ`` by ``tests/conftest.py`` before any test
runs, so every test that builds ``RouterSettings`` from the environment holds a sentinel for
every provider's secret (API keys, the Vertex token) and base URLs on a closed loopback port, so
such settings never reach a real provider. The OpenAI sentinel has the shape of a key; the
Vertex one has no secret shape, so only the exact-value redaction can catch it.

:class:`SecretWatch` is a pytest plugin. For every test phase it looks for the sentinels in:
captured output and log sections, the failure text, output read through ``capsys``/``capfd``,
every ``RouterError`` created (its message, fields, ``to_dict()`` and attached response), every
``LLMResponse`` the router returns and every batch output row written. Any 8 characters in a
row of a sentinel's random part count as a leak, as written, percent-encoded or JSON-escaped.
A phase that leaks fails, and the session's exit status says so. :func:`sentinel_findings` is
the detector, usable on its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from router.batch.output import ResultWriter
from router.errors import RouterError
from router.respond import Responder

__all__ = [
    "RUN_CHARS",
    "SENTINELS",
    "SENTINEL_ANTHROPIC_KEY",
    "SENTINEL_ENVIRONMENT",
    "SENTINEL_GEMINI_KEY",
    "SENTINEL_OPENAI_KEY",
    "SENTINEL_OPENROUTER_KEY",
    "SENTINEL_PERPLEXITY_KEY",
    "SENTINEL_SECRETS",
    "SENTINEL_VERTEX_TOKEN",
    "SecretWatch",
    "sentinel_findings",
    "vendor_sentinel",
]

# Random characters with a letter past "f" at least every seven places, so that no 8-character
# run of a core is hex: the emulator's ids are random hex (OpenAI-style ``resp_`` and ``ws_`` ids,
# OpenRouter's ``gen-`` ids), and an all-hex run turned up in one by chance once in a while
# (about 8e-7 per 50-digit id), failing an innocent test as a leak.
_OPENAI_CORE = "7c1k0f5a9bqd4e26awf1"
_VERTEX_CORE = "4b9m2d7a1crf0e38dta2"
_GEMINI_CORE = "9d3n6a1e8bvc7e40fxb6"
_PERPLEXITY_CORE = "2e8g5b0f7asd1e93chb8"
_OPENROUTER_CORE = "6f1j9c3e5bpd2084eua7"
_ANTHROPIC_CORE = "9d3y6e1f0bzc2d48ekf6"
SENTINEL_OPENAI_KEY = f"sk-SENTINEL-{_OPENAI_CORE}"
SENTINEL_VERTEX_TOKEN = f"vertex-SENTINEL-{_VERTEX_CORE}"
SENTINEL_GEMINI_KEY = f"AIzaSENTINEL-{_GEMINI_CORE}"
SENTINEL_PERPLEXITY_KEY = f"pplx-SENTINEL-{_PERPLEXITY_CORE}"
SENTINEL_OPENROUTER_KEY = f"sk-or-SENTINEL-{_OPENROUTER_CORE}"
SENTINEL_ANTHROPIC_KEY = f"sk-ant-SENTINEL-{_ANTHROPIC_CORE}"
# The secret each sentinel stands in for, by the environment variable that holds it.
SENTINEL_SECRETS = {
    "OPENAI_API_KEY": SENTINEL_OPENAI_KEY,
    "GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN": SENTINEL_VERTEX_TOKEN,
    "GOOGLE_API_KEY": SENTINEL_GEMINI_KEY,
    "PERPLEXITY_API_KEY": SENTINEL_PERPLEXITY_KEY,
    "OPENROUTER_API_KEY": SENTINEL_OPENROUTER_KEY,
    "ANTHROPIC_API_KEY": SENTINEL_ANTHROPIC_KEY,
}
SENTINELS = tuple(SENTINEL_SECRETS.values())
_CORES = (
    _OPENAI_CORE,
    _VERTEX_CORE,
    _GEMINI_CORE,
    _PERPLEXITY_CORE,
    _OPENROUTER_CORE,
    _ANTHROPIC_CORE,
)
RUN_CHARS = 8


def _spellings(text: str) -> tuple[str, ...]:
    """``text`` as written, percent-encoded every byte (upper and lower hex), and
    JSON-escaped every character (upper and lower hex): the ways an echo may come back."""
    return (
        text,
        "".join(f"%{byte:02X}" for byte in text.encode()),
        "".join(f"%{byte:02x}" for byte in text.encode()),
        "".join(f"\\u{ord(char):04x}" for char in text),
        "".join(f"\\u{ord(char):04X}" for char in text),
    )


# Any 8 characters in a row of a core count too, in every spelling: a secret cut short by a
# message limit, masked the way OpenAI masks keys (prefix and last characters kept), or
# percent-encoded or JSON-escaped by a proxy, still leaks. (No run of a core is hex, and the ids
# and tokens that are not hex are far too random to hold one by chance.)
_MARKERS = tuple(
    dict.fromkeys(
        spelling
        for core in _CORES
        for start in range(len(core) - RUN_CHARS + 1)
        for spelling in _spellings(core[start : start + RUN_CHARS])
    )
)
_BYTE_MARKERS = tuple(marker.encode() for marker in _MARKERS)

SENTINEL_ENVIRONMENT = {
    **SENTINEL_SECRETS,
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "GROUNDING_ROUTER_VERTEX_BASE_URL": "http://127.0.0.1:9",
    "GROUNDING_ROUTER_GEMINI_BASE_URL": "http://127.0.0.1:9",
    "PERPLEXITY_BASE_URL": "http://127.0.0.1:9",
    "OPENROUTER_BASE_URL": "http://127.0.0.1:9/api/v1",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
}


def vendor_sentinel(vendor: str) -> str:
    """The sentinel secret ``vendor``'s calls are sent with (the first of its row's settings
    that holds one)."""
    from adapters.registry import provider

    return next(
        SENTINEL_SECRETS[name] for name in provider(vendor).settings if name in SENTINEL_SECRETS
    )


_MAX_DEPTH = 40


def sentinel_findings(value: object, where: str = "value") -> list[str]:
    """Where a sentinel secret occurs inside ``value``: strings, bytes, containers, pydantic
    models, exceptions (message, args, fields, ``to_dict()``) and files (their bytes)."""
    return list(_walk(value, where, 0, set()))


def _walk(value: object, where: str, depth: int, seen: set[int]) -> Iterator[str]:
    if isinstance(value, str):
        if any(marker in value for marker in _MARKERS):
            yield where
        return
    if isinstance(value, bytes | bytearray):
        if any(marker in value for marker in _BYTE_MARKERS):
            yield where
        return
    if depth > _MAX_DEPTH or id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, Path):
        if value.is_file():
            yield from _walk(value.read_bytes(), f"{where} (file {value.name})", depth + 1, seen)
        return
    if isinstance(value, BaseException):
        yield from _walk_exception(value, where, depth, seen)
    elif isinstance(value, BaseModel):
        yield from _walk(value.model_dump(), where, depth + 1, seen)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _walk(key, f"{where} key", depth + 1, seen)
            yield from _walk(item, f"{where}[{key!r}]", depth + 1, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            yield from _walk(item, f"{where}[{index}]", depth + 1, seen)


def _walk_exception(error: BaseException, where: str, depth: int, seen: set[int]) -> Iterator[str]:
    name = type(error).__name__
    yield from _walk(str(error), f"{where} str({name})", depth + 1, seen)
    yield from _walk(repr(error), f"{where} repr({name})", depth + 1, seen)
    yield from _walk(error.args, f"{where} {name}.args", depth + 1, seen)
    yield from _walk(dict(vars(error)), f"{where} {name} fields", depth + 1, seen)
    to_dict = getattr(error, "to_dict", None)
    if callable(to_dict):
        yield from _walk(to_dict(), f"{where} {name}.to_dict()", depth + 1, seen)


class SecretWatch:
    """The pytest plugin described in the module docstring."""

    def __init__(self) -> None:
        self.leaks: list[str] = []
        self._findings: list[str] = []
        self._undo: list[Callable[[], None]] = []

    def observe(self, where: str, value: object) -> None:
        """Check ``value`` now; a leak fails the test phase that is running."""
        self._findings.extend(sentinel_findings(value, where))

    # -- the channels ----------------------------------------------------------------------------

    def _wrap(self, owner: type, name: str, after: Callable[..., None]) -> None:
        original = owner.__dict__[name]

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            after(owner, result, *args, **kwargs)
            return result

        setattr(owner, name, wrapper)
        self._undo.append(lambda: setattr(owner, name, original))

    def _error_built(
        self, owner: type, _result: None, error: RouterError, *_: Any, **__: Any
    ) -> None:
        # Checked once, when the most derived __init__ has set every field of the error.
        if owner is next(c for c in type(error).__mro__ if "__init__" in c.__dict__):
            self.observe("error", error)

    def pytest_configure(self, config: pytest.Config) -> None:
        del config
        pending: list[type] = [RouterError]
        while pending:
            error_class = pending.pop()
            pending.extend(error_class.__subclasses__())
            if "__init__" in error_class.__dict__:
                self._wrap(error_class, "__init__", self._error_built)
        self._wrap(
            Responder,
            "respond",
            lambda _owner, response, *_a, **_k: self.observe("LLMResponse", response),
        )
        self._wrap(
            ResultWriter,
            "write_line",
            lambda _owner, _result, _writer, line: self.observe("batch output row", line),
        )
        self._wrap(
            pytest.CaptureFixture,
            "readouterr",
            lambda _owner, captured, _fixture: self.observe("output read by the test", captured),
        )

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        del config
        while self._undo:
            self._undo.pop()()

    # -- the check -------------------------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Iterator[None]:
        outcome = yield
        report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
        findings, self._findings = self._findings, []
        for title, text in report.sections:
            findings.extend(sentinel_findings(text, title))
        if report.longrepr is not None:
            findings.extend(sentinel_findings(str(report.longrepr), "failure report"))
        if not findings:
            return
        unique = list(dict.fromkeys(findings))
        self.leaks.extend(f"{item.nodeid} ({call.when}): {finding}" for finding in unique)
        if not report.failed:
            report.outcome = "failed"
            report.longrepr = "a sentinel secret leaked into: " + "; ".join(unique)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.leaks:
            terminalreporter.section("sentinel secrets leaked", red=True)
            for leak in self.leaks:
                terminalreporter.line(leak)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.leaks and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
