"""``grounding-router batch`` and ``validate`` run in-process: an emulator per module, the CLI's
environment pointed at it for each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from router.emulated import emulated_environment
from router.emulator import Emulator


@pytest.fixture(scope="module")
def module_emulator() -> Iterator[Emulator]:
    """One emulator for the module's tests."""
    with Emulator() as running:
        yield running


@pytest.fixture
def emulator(module_emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Emulator:
    """The module's emulator, the CLI's environment pointing every vendor at it, no retries."""
    for name, value in emulated_environment(module_emulator).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GROUNDING_ROUTER_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("COLUMNS", "200")
    module_emulator.clear_requests()
    return module_emulator
