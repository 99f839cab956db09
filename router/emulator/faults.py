"""Fault specs, fault plans and the three ways a request picks its fault.

A fault is chosen, first match wins, from the ``X-Emulator-Fault`` request header, a
``[[emulator:fault=SPEC]]`` directive in the last user message, then the emulator's
:class:`FaultPlan`. The grammar is documented in the package docstring.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from router.emulator.apis import API_NAMES
from router.emulator.fault_kinds import (
    CONTENT_FAULTS,
    FAULT_KINDS,
    FaultKind,
    retry_after_header,
)

__all__ = [
    "CONTENT_FAULTS",
    "FAULT_HEADER",
    "FAULT_KINDS",
    "AttemptCounter",
    "FaultKind",
    "FaultPlan",
    "FaultSpec",
    "FaultSpecError",
    "directive_spec",
    "retry_after_header",
    "strip_directives",
]

FAULT_HEADER = "X-Emulator-Fault"

_SPEC = re.compile(
    r"""^\s*(?P<kind>[a-z_0-9]+)
        (?::(?P<arg>\d+(?:\.\d+)?))?
        (?:\*(?P<count>\d+))?
        (?:@(?P<api>[a-z_0-9]+))?\s*$""",
    re.VERBOSE,
)
_DIRECTIVE = re.compile(r"\[\[emulator:fault=([^\]]*)\]\]")
# Every directive (fault=, refuse=, ...): none of them may reach a synthesised answer.
_ANY_DIRECTIVE = re.compile(r"\[\[emulator:[a-z_]+=[^\]]*\]\]")
_HTML_STATUSES = (502, 503)


class FaultSpecError(ValueError):
    """A fault spec or rate list that does not follow the grammar."""


@dataclass(frozen=True)
class FaultSpec:
    """One fault: its kind, an optional numeric argument, attempt count and API.

    ``arg`` means Retry-After seconds for 429, 503 and 529, seconds for delay, hang and the
    trickles, and the status code (502 or 503) for html. ``count`` limits the fault to the first
    ``count`` attempts of an identical request; ``None`` applies it to every attempt. ``api``
    limits it to the requests on one API (``openai``, ``vertex``, ...); ``None`` applies it to
    all, so one prompt sent to several providers can fault on one of them only.
    """

    kind: FaultKind
    arg: float | None = None
    count: int | None = None
    api: str | None = None

    @classmethod
    def parse(cls, text: str) -> FaultSpec:
        """Read ``KIND[:ARG][*COUNT][@API]``, e.g. ``429:2*1``, ``delay:0.5``, ``500@vertex``."""
        match = _SPEC.match(text)
        if match is None:
            raise FaultSpecError(f"not a fault spec: {text!r} (expected KIND[:ARG][*COUNT][@API])")
        kind = match["kind"]
        if kind not in FAULT_KINDS:
            raise FaultSpecError(f"unknown fault kind {kind!r}; known: {', '.join(FAULT_KINDS)}")
        arg = float(match["arg"]) if match["arg"] is not None else None
        count = int(match["count"]) if match["count"] is not None else None
        if count is not None and count < 1:
            raise FaultSpecError(f"fault count must be at least 1: {text!r}")
        if kind == "html" and arg is not None and int(arg) not in _HTML_STATUSES:
            raise FaultSpecError(f"html fault status must be 502 or 503: {text!r}")
        api = match["api"]
        if api is not None and api not in API_NAMES:
            raise FaultSpecError(f"unknown API {api!r} in {text!r}; known: {', '.join(API_NAMES)}")
        return cls(kind=cast(FaultKind, kind), arg=arg, count=count, api=api)

    def __str__(self) -> str:
        text: str = self.kind
        if self.arg is not None:
            text += f":{self.arg:g}"
        if self.count is not None:
            text += f"*{self.count}"
        if self.api is not None:
            text += f"@{self.api}"
        return text

    def applies_to(self, api: str) -> bool:
        """Whether the fault applies to a request on ``api``."""
        return self.api is None or self.api == api

    @property
    def retry_after_s(self) -> float | None:
        """Seconds for Retry-After (429 defaults to 1 s; 503 and 529 send one only if set)."""
        if self.kind == "429":
            return self.arg if self.arg is not None else 1.0
        if self.kind in ("503", "529"):
            return self.arg
        return None

    @property
    def html_status(self) -> int:
        """The status of an html fault's error page."""
        return int(self.arg) if self.arg is not None else 502


@dataclass(frozen=True)
class FaultPlan:
    """The emulator-wide fault: one fixed spec for every request, or a deterministic mix.

    With ``rates``, each request's text is hashed with ``seed`` to a number in [0, 1) that
    picks at most one spec, so the same batch input always gets the same faults.
    """

    fault: FaultSpec | None = None
    rates: tuple[tuple[FaultSpec, float], ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        if self.fault is not None and self.rates:
            raise FaultSpecError("a fault plan has either one fixed fault or rates, not both")
        for spec, rate in self.rates:
            if not 0.0 <= rate <= 1.0:
                raise FaultSpecError(f"rate of {spec} must be within [0, 1], got {rate}")
        if sum(rate for _, rate in self.rates) > 1.0 + 1e-9:
            raise FaultSpecError("fault rates add up to more than 1")

    @classmethod
    def always(cls, spec: str | FaultSpec) -> FaultPlan:
        """Apply one fault to every request (within its ``*N`` count)."""
        return cls(fault=spec if isinstance(spec, FaultSpec) else FaultSpec.parse(spec))

    @classmethod
    def mix(cls, rates: Mapping[str, float], *, seed: int = 0) -> FaultPlan:
        """Faults at rates, e.g. ``{"429*1": 0.10, "500": 0.05, "no_search": 0.05}``."""
        return cls(rates=tuple((FaultSpec.parse(k), float(v)) for k, v in rates.items()), seed=seed)

    @classmethod
    def parse(cls, text: str, *, seed: int = 0) -> FaultPlan:
        """Read a fixed spec (``429:2*1``) or a rate list (``429*1=0.1,500=0.05``)."""
        if "=" not in text:
            return cls.always(text)
        rates: dict[str, float] = {}
        for item in text.split(","):
            spec, sep, rate = item.partition("=")
            try:
                rates[spec.strip()] = float(rate)
            except ValueError:
                raise FaultSpecError(f"not SPEC=RATE: {item!r}") from None
            if not sep:
                raise FaultSpecError(f"not SPEC=RATE: {item!r}")
        return cls.mix(rates, seed=seed)

    def choose(self, text: str) -> FaultSpec | None:
        """The fault this plan gives a request with this text, or None."""
        if self.fault is not None:
            return self.fault
        if not self.rates:
            return None
        digest = hashlib.sha256(f"{self.seed}\0{text}".encode()).digest()
        point = int.from_bytes(digest[:8], "big") / 2**64
        edge = 0.0
        for spec, rate in self.rates:
            edge += rate
            if point < edge:
                return spec
        return None


def directive_spec(text: str, api: str | None = None) -> FaultSpec | None:
    """The fault of the first ``[[emulator:fault=SPEC]]`` in ``text`` that applies to ``api``.

    A directive scoped to another API (``500@vertex`` on an OpenAI request) is passed over, so
    one prompt may carry a fault for each provider it is sent to. Without ``api``, the first.
    """
    for match in _DIRECTIVE.finditer(text):
        spec = FaultSpec.parse(match[1])
        if api is None or spec.applies_to(api):
            return spec
    return None


def strip_directives(text: str) -> str:
    """The text without emulator directives, so they never reach a synthesised answer."""
    return _ANY_DIRECTIVE.sub("", text).strip()


class AttemptCounter:
    """Counts attempts of identical requests so a ``*N`` fault lets attempt N+1 through."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, bytes], int] = {}
        self._lock = threading.Lock()

    def hits(self, spec: FaultSpec, request_key: bytes) -> bool:
        """Record one attempt; True while the spec still applies to this request."""
        if spec.count is None:
            return True
        key = (str(spec), hashlib.sha256(request_key).digest())
        with self._lock:
            attempt = self._seen.get(key, 0) + 1
            self._seen[key] = attempt
        return attempt <= spec.count
