"""The environment variables of the router's settings, as the README and the registry name them."""

from __future__ import annotations

from pydantic import AliasChoices

from router.settings import ENV_PREFIX, RouterSettings

__all__ = ["setting_variables"]


def setting_variables() -> dict[str, tuple[str, ...]]:
    """Each setting's variables, the customary name first (``GOOGLE_API_KEY``, ...); a setting
    without one of its own is read from the prefixed name only."""
    names: dict[str, tuple[str, ...]] = {}
    for name, field in RouterSettings.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names[name] = tuple(str(choice) for choice in alias.choices)
        else:
            names[name] = (f"{ENV_PREFIX}{name.upper()}",)
    return names
