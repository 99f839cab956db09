"""Router settings that point both adapters at a running emulator (demo, tests, benchmarks).

The keys and token are placeholders the emulator accepts; nothing is read from the environment
or ``.env``, so a developer's real credentials never reach an emulated run.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import SecretStr

from router.settings import RouterSettings

__all__ = ["EMULATOR_API_KEY", "EMULATOR_TOKEN", "EmulatorEndpoints", "emulated_settings"]

EMULATOR_API_KEY = "sk-emulator-local"
EMULATOR_TOKEN = "emulator-local-token"


class EmulatorEndpoints(Protocol):
    """Where a running emulator listens: a ``router.emulator.Emulator``, or one in another
    process known by its addresses."""

    @property
    def openai_base_url(self) -> str: ...

    @property
    def vertex_base_url(self) -> str: ...


def emulated_settings(emulator: EmulatorEndpoints, **overrides: Any) -> RouterSettings:
    """Settings for ``emulator``'s two endpoints; ``overrides`` set any other field."""
    fields: dict[str, Any] = {
        "openai_api_key": SecretStr(EMULATOR_API_KEY),
        "openai_base_url": emulator.openai_base_url,
        "google_cloud_project": "emulator-project",
        "google_cloud_location": "us-central1",
        "vertex_base_url": emulator.vertex_base_url,
        "vertex_access_token": SecretStr(EMULATOR_TOKEN),
        **overrides,
    }
    return RouterSettings(_env_file=None, **fields)
