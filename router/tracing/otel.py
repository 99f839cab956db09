"""Where OpenTelemetry is reached, lazily: only when the application configured tracing.

grounding-router depends on ``opentelemetry-api`` only through the optional ``otel`` extra, and
never imports it by itself: an application that traces has imported ``opentelemetry.trace`` to
set its tracer provider (or ``opentelemetry-instrument`` did, or ``OTEL_PYTHON_TRACER_PROVIDER``
names one), so until then every check here is a dictionary lookup and tracing is off. Once a
real tracer provider is set, the router's spans go to it; a router given a ``tracer_provider``
uses that one instead.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from typing import Any

__all__ = ["DISTRIBUTION", "TRACER_NAME", "loaded_trace_api", "resolve_tracer", "trace_api"]

TRACER_NAME = "grounding_router"
DISTRIBUTION = "grounding-router"
_TRACE_MODULE = "opentelemetry.trace"
# The API loads the provider this variable names on first use, so set, it means "tracing on".
_PROVIDER_VARIABLE = "OTEL_PYTHON_TRACER_PROVIDER"


def loaded_trace_api() -> Any | None:
    """``opentelemetry.trace`` if something imported it already, else None (never imports)."""
    return sys.modules.get(_TRACE_MODULE)


def trace_api() -> Any | None:
    """``opentelemetry.trace``, imported now if needed; None when the API is not installed."""
    api = loaded_trace_api()
    if api is not None:
        return api
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace


def resolve_tracer(tracer_provider: Any | None) -> tuple[Any, Any] | None:
    """``(the trace API, the tracer)`` spans go to, or None when tracing is off (the common case).

    ``tracer_provider`` given: its tracer. Otherwise the global provider, if the application
    set a real one; the API's proxy and no-op providers mean nobody is listening.
    """
    api = loaded_trace_api()
    if api is None and (tracer_provider is not None or _provider_variable_set()):
        api = trace_api()
    if api is None:
        return None
    provider = tracer_provider if tracer_provider is not None else api.get_tracer_provider()
    if isinstance(provider, api.ProxyTracerProvider | api.NoOpTracerProvider):
        return None
    return api, _tracer_of(provider)


@lru_cache(maxsize=1)
def _provider_variable_set() -> bool:
    """Whether the environment names a tracer provider; read once, as the API reads it once."""
    return _PROVIDER_VARIABLE in os.environ


@lru_cache(maxsize=16)
def _tracer_of(provider: Any) -> Any:
    return provider.get_tracer(TRACER_NAME, _installed_version())


def _installed_version() -> str | None:
    """The installed distribution's version, the instrumentation scope's version."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
