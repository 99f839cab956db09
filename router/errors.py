"""The error tree of grounding-router.

Every error the router raises on purpose is a ``RouterError``; nothing else is meant to escape
``route()``. Each error carries the fields a batch report needs and serialises with ``to_dict()``.
Every string an error holds, whenever it is set, passes the one redaction
(:func:`router.text.redaction.redact_text`): a provider or proxy that quotes a credential back, in
any field and any encoding, cannot put it into a message, a field or ``to_dict()``.

```
RouterError
├── RequestValidationError       the request is malformed or contradictory
├── ConfigurationError           missing key, project or location
├── ProviderError                vendor, status_code, provider message
│   ├── ProviderTransientError   429, 408, 5xx, timeouts, connection errors, after retries ran out
│   └── ProviderRequestError     other 4xx: never retried
├── ResponseParseError           the provider's reply cannot be used at all
├── GroundingValidationError
│   └── GroundingRequiredFailedError
└── FanoutError                  route_many: not enough providers answered (each one's error kept)
```
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Any, Literal, Protocol

from router.text.redaction import redact_text

__all__ = [
    "ConfigurationError",
    "FanoutError",
    "GroundingRequiredFailedError",
    "GroundingRequiredReason",
    "GroundingValidationError",
    "KeptResponse",
    "KeptUsage",
    "ProviderError",
    "ProviderRequestError",
    "ProviderTransientError",
    "RequestValidationError",
    "ResponseParseError",
    "RouterError",
]

GroundingRequiredReason = Literal["not_invoked", "no_citations", "policy"]


class KeptUsage(Protocol):
    """What an error reads of the usage it keeps: at run time a ``router.types.Usage``."""

    def model_dump(self, *, mode: str = ...) -> dict[str, Any]: ...


class KeptResponse(Protocol):
    """What a grounding error reads of the response it rejected: at run time an ``LLMResponse``.

    The error tree sits below the types (``router.types`` raises ``RequestValidationError``), so
    it names the response's shape here instead of importing ``LLMResponse``.
    """

    @property
    def usage(self) -> KeptUsage: ...

    @property
    def grounded_effective(self) -> bool: ...

    @property
    def tool_call_count(self) -> int: ...

    @property
    def citations(self) -> Sized: ...

    @property
    def attempts(self) -> int: ...


class RouterError(Exception):
    """Base of every error grounding-router raises on purpose.

    The context fields are optional because not every error knows them (a request that fails
    validation may have no vendor yet); the router fills ``request_id`` and friends in as the
    error passes through it.
    """

    def __init__(
        self,
        message: str,
        *,
        vendor: str | None = None,
        model: str | None = None,
        request_id: str | None = None,
        status_code: int | None = None,
        reason: str | None = None,
    ) -> None:
        message = redact_text(message)
        super().__init__(message)
        self.message = message
        self.vendor = vendor
        self.model = model
        self.request_id = request_id
        self.status_code = status_code
        self.reason = reason
        # Set when a request with fallbacks failed on every vendor: one entry per vendor tried
        # or skipped, as the response's ``metadata["attempts"]`` lists them (router.fallback).
        self.fallback_attempts: list[dict[str, Any]] | None = None
        # What the failed call was paid for, when an answer came back and was then rejected:
        # that answer's usage, its cost (with fallbacks) every paid attempt's added up. A batch
        # row carries it, so a run's rows add up to its summary's cost.
        self.usage: KeptUsage | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        # The choke point for every field, provider_message included, set now or later.
        super().__setattr__(name, redact_text(value) if isinstance(value, str) else value)

    def with_context(
        self,
        *,
        vendor: str | None = None,
        model: str | None = None,
        request_id: str | None = None,
    ) -> RouterError:
        """Fill in context fields that are still unset, and return the same error."""
        self.vendor = self.vendor or vendor
        self.model = self.model or model
        self.request_id = self.request_id or request_id
        return self

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able view of the error, as a batch output row carries it (redacted)."""
        data = {
            key: redact_text(value) if isinstance(value, str) else value
            for key, value in self._fields().items()
        }
        if self.fallback_attempts is not None:
            data["fallback_attempts"] = self.fallback_attempts
        if self.usage is not None:
            data["usage"] = self.usage.model_dump(mode="json")
        return data

    def _fields(self) -> dict[str, Any]:
        return {
            "type": type(self).__name__,
            "message": self.message,
            "reason": self.reason,
            "vendor": self.vendor,
            "model": self.model,
            "request_id": self.request_id,
            "status_code": self.status_code,
        }

    def __str__(self) -> str:
        return self.message


class RequestValidationError(RouterError):
    """The request is malformed or contradictory; ``field`` names the offending field."""

    def __init__(self, message: str, *, field: str | None = None, **context: Any) -> None:
        super().__init__(message, reason=context.pop("reason", "invalid_request"), **context)
        self.field = field

    def _fields(self) -> dict[str, Any]:
        return {**super()._fields(), "field": self.field}


class ConfigurationError(RouterError):
    """A setting the call needs is missing or unusable (API key, project, location)."""

    def __init__(self, message: str, *, setting: str | None = None, **context: Any) -> None:
        super().__init__(message, reason=context.pop("reason", "configuration"), **context)
        self.setting = setting

    def _fields(self) -> dict[str, Any]:
        return {**super()._fields(), "setting": self.setting}


class ProviderError(RouterError):
    """The provider answered with an error, or could not be reached."""

    def __init__(
        self,
        message: str,
        *,
        provider_message: str | None = None,
        attempts: int = 1,
        **context: Any,
    ) -> None:
        super().__init__(message, **context)
        self.provider_message = provider_message
        self.attempts = attempts

    def _fields(self) -> dict[str, Any]:
        return {
            **super()._fields(),
            "provider_message": self.provider_message,
            "attempts": self.attempts,
        }


class ProviderTransientError(ProviderError):
    """A retryable failure (429, 408, 409, 5xx, timeout, connection) after retries ran out."""

    def __init__(
        self,
        message: str,
        *,
        retry_after_s: float | None = None,
        **context: Any,
    ) -> None:
        super().__init__(message, **context)
        self.retry_after_s = retry_after_s

    def _fields(self) -> dict[str, Any]:
        return {**super()._fields(), "retry_after_s": self.retry_after_s}


class ProviderRequestError(ProviderError):
    """The provider rejected the request (a 4xx other than 408/409/429): never retried."""


class ResponseParseError(RouterError):
    """The provider's reply cannot be used at all (not JSON when JSON was asked, no text, ...)."""

    def __init__(self, message: str, **context: Any) -> None:
        super().__init__(message, reason=context.pop("reason", "unparseable_response"), **context)


class GroundingValidationError(RouterError):
    """A grounding policy rejected the response; the response is kept for forensics."""

    def __init__(
        self,
        message: str,
        *,
        response: KeptResponse | None = None,
        **context: Any,
    ) -> None:
        super().__init__(message, **context)
        self.response = response
        self.usage = response.usage if response is not None else None

    def _fields(self) -> dict[str, Any]:
        data = super()._fields()
        if self.response is not None:
            data["grounded_effective"] = self.response.grounded_effective
            data["tool_call_count"] = self.response.tool_call_count
            data["citation_count"] = len(self.response.citations)
        return data


class GroundingRequiredFailedError(GroundingValidationError):
    """REQUIRED grounding was asked for, but the answer is not grounded as required.

    ``reason`` is ``"not_invoked"`` (no search ran), ``"no_citations"`` (it searched, but no
    citation could be extracted) or ``"policy"`` (a rule of the grounding policy was broken:
    ``rule`` names the first one, ``report`` is the whole ``GroundingReport``).
    """

    reason: GroundingRequiredReason

    def __init__(
        self,
        message: str,
        *,
        reason: GroundingRequiredReason,
        response: KeptResponse | None = None,
        rule: str | None = None,
        report: Any = None,
        **context: Any,
    ) -> None:
        super().__init__(message, response=response, reason=reason, **context)
        self.rule = rule
        self.report = report

    def _fields(self) -> dict[str, Any]:
        data = super()._fields()
        if self.rule is not None:
            data["rule"] = self.rule
        if self.report is not None:  # a batch row keeps the figures the rule was judged on
            data["coverage"] = getattr(self.report, "coverage", None)
            data["support_rate"] = getattr(self.report, "support_rate", None)
        return data


class FanoutError(RouterError):
    """``route_many`` could not meet its ``require``: each failed provider's error is kept.

    ``errors`` maps each failed vendor to its ``RouterError``; ``result`` is the whole fan-out
    (the answers that did arrive, and their aggregate), for forensics and partial use.
    """

    def __init__(
        self, message: str, *, errors: dict[str, RouterError], result: object = None, **context: Any
    ) -> None:
        super().__init__(message, reason=context.pop("reason", "providers_failed"), **context)
        self.errors = errors
        self.result = result

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "providers": {vendor: error.to_dict() for vendor, error in self.errors.items()},
        }
