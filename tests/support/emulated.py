"""Routing to the loopback emulator: settings and requests shared by the end-to-end suites.

The settings take their credentials from the environment, which holds the sentinel key and
token for the whole run (``support.secret_watch``), so every route of these suites also checks
that no credential leaks.
"""

from __future__ import annotations

import os
from typing import Any

from router.emulated import EMULATOR_API_KEY, EMULATOR_TOKEN, EmulatorEndpoints
from router.settings import RouterSettings

__all__ = ["MODELS", "VENDORS", "cli_environment", "emulator_settings", "grounded_request"]

VENDORS = ("openai", "vertex")
MODELS = {"openai": "gpt-5", "vertex": "gemini-2.5-flash"}


def emulator_settings(emulator: EmulatorEndpoints, **overrides: Any) -> RouterSettings:
    """Settings that point both SDKs at ``emulator``; keys from the environment, no .env."""
    options: dict[str, Any] = {
        "openai_base_url": emulator.openai_base_url,
        "google_cloud_project": "hardening",
        "google_cloud_location": "us-central1",
        "vertex_base_url": emulator.vertex_base_url,
        **overrides,
    }
    return RouterSettings(_env_file=None, **options)  # type: ignore[call-arg]


def grounded_request(
    vendor: str, question: str, *, mode: str = "AUTO", **extra: Any
) -> dict[str, Any]:
    """A grounded request to ``vendor``'s default model in grounding ``mode``."""
    return {
        "vendor": vendor,
        "model": MODELS[vendor],
        "messages": [{"role": "user", "content": question}],
        "grounded": True,
        "grounding_mode": mode,
        **extra,
    }


def cli_environment(emulator: EmulatorEndpoints) -> dict[str, str]:
    """The environment of a CLI subprocess routed to ``emulator``, retrying without delay."""
    return {
        **os.environ,
        "OPENAI_API_KEY": EMULATOR_API_KEY,
        "OPENAI_BASE_URL": emulator.openai_base_url,
        "GOOGLE_CLOUD_PROJECT": "emulator-project",
        "GOOGLE_CLOUD_LOCATION": "us-central1",
        "GROUNDING_ROUTER_VERTEX_BASE_URL": emulator.vertex_base_url,
        "GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN": EMULATOR_TOKEN,
        "GROUNDING_ROUTER_RETRY_INITIAL_DELAY_S": "0",
        "GROUNDING_ROUTER_RETRY_MAX_DELAY_S": "0",
    }
