"""Shared fixtures: an environment with sentinel credentials only, the secret watch, settings,
a loopback emulator per test module."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import structlog
from hypothesis import settings as hypothesis_settings

from router.emulator import Emulator
from router.logging import LIBRARY_LOGGERS
from router.settings import RouterSettings
from support.secret_watch import SENTINEL_ENVIRONMENT, SecretWatch

# Real credentials on a developer machine must never reach a test, and the SDKs change branch
# on these variables (sdk-notes: GOOGLE_API_KEY, GOOGLE_CLOUD_PROJECT, ...).
_PROVIDER_ENV_PREFIXES = (
    "OPENAI_",
    "ANTHROPIC_",
    "GOOGLE_",
    "GEMINI_",
    "PERPLEXITY_",
    "OPENROUTER_",
    "GROUNDING_ROUTER_",
    "VERTEX",
)
for _name in list(os.environ):
    if _name.startswith(_PROVIDER_ENV_PREFIXES) or _name == "DEBUG_GROUNDING":
        del os.environ[_name]
# Sentinel credentials instead, for the whole run: any test that builds settings from the
# environment holds them, and the secret watch fails every test that lets one out.
os.environ.update(SENTINEL_ENVIRONMENT)


# Property tests explore a fixed sequence of examples, so CI is repeatable and a failure
# reproduces; HYPOTHESIS_PROFILE=explore searches fresh examples on every run instead.
# No per-example deadline: it is a wall-clock assertion, and a loaded 2-core machine runs an
# example past 200 ms now and then. pytest-timeout still catches a hang.
hypothesis_settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
hypothesis_settings.register_profile("explore", derandomize=False, deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SecretWatch(), "secret-watch")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", default=False, help="also run tests marked slow"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked slow (large fuzz runs, big batches) run only with --runslow."""
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def make_settings() -> Callable[..., RouterSettings]:
    """Build settings from keyword overrides only, ignoring any .env in the working directory."""

    def build(**overrides: Any) -> RouterSettings:
        return RouterSettings(_env_file=None, **overrides)

    return build


@pytest.fixture(autouse=True)
def _fresh_logging() -> Any:
    """Undo any logging set-up a test (e.g. an in-process CLI run) made: the library's loggers
    go back to their NullHandler alone, and structlog to its defaults."""
    yield
    structlog.reset_defaults()
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        for handler in logger.handlers[:]:
            if not isinstance(handler, logging.NullHandler):
                logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        logger.propagate = True


@pytest.fixture(scope="module")
def emulator() -> Iterator[Emulator]:
    """One running emulator per test module; modules that need a fresh one per test override it."""
    with Emulator() as running:
        yield running
