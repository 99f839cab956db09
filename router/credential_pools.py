"""Pools of credentials: several keys or projects per vendor, spread over a batch job's processes.

``GROUNDING_ROUTER_CREDENTIAL_POOLS`` maps a vendor to a list of credential sets, each of which
overrides that vendor's credential fields (:data:`CREDENTIAL_FIELDS`) of the settings. Batch
worker number ``i`` (a local worker process, a Ray routing actor) routes with entry
``i % len(pool)`` of every pool (:func:`pool_entry_settings`), so each credential has its own
rate-limit key (:func:`router.batch.limits.credential_key`) and its own ``max_rps``.

The values are secrets: held as ``SecretStr``, listed by ``RouterSettings.named_secrets`` so
they are registered for redaction with the single keys, and never quoted in validation errors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr

from router.types import Vendor

__all__ = [
    "CREDENTIAL_FIELDS",
    "CredentialSet",
    "check_pools",
    "pool_secrets",
]

CREDENTIAL_FIELDS: dict[str, tuple[str, ...]] = {
    "openai": ("openai_api_key",),
    "anthropic": ("anthropic_api_key",),
    "vertex": ("google_cloud_project", "google_cloud_location", "vertex_access_token"),
    "gemini": ("gemini_api_key",),
    "perplexity": ("perplexity_api_key",),
    "openrouter": ("openrouter_api_key",),
}
"""Each vendor's credential fields of the settings: what tells one key or project from another."""


class CredentialSet(BaseModel):
    """One entry of a vendor's pool: the credential fields it sets (only that vendor's; see
    :func:`check_pools`). A field left out keeps the settings' own value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    openai_api_key: SecretStr | None = None
    anthropic_api_key: SecretStr | None = None
    google_cloud_project: str | None = None
    google_cloud_location: str | None = None
    vertex_access_token: SecretStr | None = None
    gemini_api_key: SecretStr | None = None
    perplexity_api_key: SecretStr | None = None
    openrouter_api_key: SecretStr | None = None

    def __repr_args__(self) -> Any:
        # Only what the entry sets: eight fields, mostly None, would bury it.
        return [(name, getattr(self, name)) for name in sorted(self.model_fields_set)]

    def overrides(self) -> dict[str, Any]:
        """The settings fields this entry sets, with their values."""
        return {name: getattr(self, name) for name in sorted(self.model_fields_set)}


def check_pools(
    pools: Mapping[Vendor, Sequence[CredentialSet]],
) -> dict[Vendor, tuple[CredentialSet, ...]]:
    """``pools`` when every entry sets at least one of its vendor's credential fields, none
    empty, and nothing else; otherwise a ``ValueError`` naming the vendor, entry and field
    (never the value)."""
    for vendor, pool in pools.items():
        allowed = CREDENTIAL_FIELDS[vendor]
        if not pool:
            raise ValueError(f"credential_pools[{vendor!r}] is empty: give one entry or more")
        for index, entry in enumerate(pool):
            where = f"credential_pools[{vendor!r}][{index}]"
            if not entry.model_fields_set:
                raise ValueError(f"{where} sets nothing: set one of {', '.join(allowed)}")
            for name in sorted(entry.model_fields_set):
                if name not in allowed:
                    raise ValueError(
                        f"{where}: {name!r} is not a credential field of {vendor}"
                        f" (allowed: {', '.join(allowed)})"
                    )
                value = getattr(entry, name)
                text = value.get_secret_value() if isinstance(value, SecretStr) else value
                if not text:
                    raise ValueError(f"{where}: {name!r} is empty")
    return {vendor: tuple(pool) for vendor, pool in pools.items()}


def pool_secrets(pools: Mapping[Vendor, Sequence[CredentialSet]]) -> dict[str, str]:
    """The secrets the pools hold, by a name saying where each is set (for redaction)."""
    named: dict[str, str] = {}
    for vendor, pool in pools.items():
        for index, entry in enumerate(pool):
            for name, value in entry.overrides().items():
                if isinstance(value, SecretStr) and value.get_secret_value():
                    where = f"GROUNDING_ROUTER_CREDENTIAL_POOLS[{vendor}][{index}].{name.upper()}"
                    named[where] = value.get_secret_value()
    return named
