"""Router settings that point every adapter at a running emulator (demo, tests, benchmarks).

The keys and token are placeholders the emulator accepts; nothing is read from the environment
or ``.env``, so a developer's real credentials never reach an emulated run.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import AliasChoices, SecretStr

from router.emulator.apis import API_NAMES
from router.settings import ENV_PREFIX, RouterSettings

__all__ = [
    "EMULATOR_API_KEY",
    "EMULATOR_TOKEN",
    "EmulatorEndpoints",
    "emulated_environment",
    "emulated_settings",
]

# Placeholders, but held as secrets like real ones: no word of 8 letters in them, since every
# 8-character run of a secret is redacted wherever it appears.
EMULATOR_API_KEY = "sk-emu-5c0d9a7e31b2f846"
EMULATOR_TOKEN = "emu-tok-8e2a6f14c9d0b357"


class EmulatorEndpoints(Protocol):
    """Where a running emulator listens: a ``router.emulator.Emulator``, or one in another
    process known by its addresses."""

    def base_url(self, vendor: str) -> str:
        """The ``base_url`` to give ``vendor``'s SDK (its emulator API's suffix included)."""
        ...


def emulated_settings(emulator: EmulatorEndpoints, **overrides: Any) -> RouterSettings:
    """Settings for ``emulator``'s endpoints; ``overrides`` set any other field.

    Every API the emulator speaks gets its ``<vendor>_base_url``, and the placeholder key or
    token in whichever of ``<vendor>_api_key`` and ``<vendor>_access_token`` it has.
    """
    fields: dict[str, Any] = {
        "google_cloud_project": "emulator-project",
        "google_cloud_location": "us-central1",
    }
    credentials = {"api_key": EMULATOR_API_KEY, "access_token": EMULATOR_TOKEN}
    for vendor in API_NAMES:
        fields[f"{vendor}_base_url"] = emulator.base_url(vendor)
        for kind, secret in credentials.items():
            if f"{vendor}_{kind}" in RouterSettings.model_fields:
                fields[f"{vendor}_{kind}"] = SecretStr(secret)
    return RouterSettings(_env_file=None, **(fields | overrides))


def emulated_environment(emulator: EmulatorEndpoints) -> dict[str, str]:
    """The environment variables that give ``emulated_settings`` (for a CLI run, an export).

    Each setting under its customary name where it has one (``OPENAI_BASE_URL``), else under
    the ``GROUNDING_ROUTER_`` prefix.
    """
    settings = emulated_settings(emulator)
    environment: dict[str, str] = {}
    for name in sorted(settings.model_fields_set):
        value = getattr(settings, name)
        text = value.get_secret_value() if isinstance(value, SecretStr) else str(value)
        alias = RouterSettings.model_fields[name].validation_alias
        if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
            environment[alias.choices[0]] = text
        else:
            environment[f"{ENV_PREFIX}{name.upper()}"] = text
    return environment
