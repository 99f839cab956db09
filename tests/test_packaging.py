"""Packaging: the import packages, the public API and the import-time promise."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import router

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("package", ["router", "adapters", "als"])
def test_package_resolves_to_this_project(package: str) -> None:
    """router, adapters and als are this checkout's packages and ship py.typed."""
    module = importlib.import_module(package)
    assert module.__file__ is not None
    location = Path(module.__file__).resolve().parent
    assert location == ROOT / package
    assert (location / "py.typed").exists()


def test_public_api_is_exact() -> None:
    """router.__all__ lists exactly the public names, and each one exists."""
    expected = {
        "Citation",
        "ConfigurationError",
        "GroundingRequiredFailedError",
        "GroundingValidationError",
        "LLMRequest",
        "LLMResponse",
        "Message",
        "ProviderError",
        "ProviderRequestError",
        "ProviderTransientError",
        "RequestValidationError",
        "ResponseParseError",
        "RouterError",
        "Router",
        "RouterSettings",
        "Span",
        "Usage",
        "UnifiedLLMAdapter",
        "UserLocation",
        "__version__",
        "aroute",
        "route",
    }
    assert set(router.__all__) == expected
    assert len(router.__all__) == len(expected)
    for name in router.__all__:
        assert hasattr(router, name), name


def test_import_router_loads_no_sdk() -> None:
    """`import router` (and the CLI parser) loads neither openai nor google.genai."""
    code = (
        "import sys, router, router.cli; router.cli.build_parser(); "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'openai' "
        "or m.startswith('google.genai') or m.startswith('aiohttp')); print(bad)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"
