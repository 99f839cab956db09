"""Credential pools: GROUNDING_ROUTER_CREDENTIAL_POOLS read and checked strictly, one pool entry
per batch worker number, and the pooled keys held and redacted as secrets."""

from __future__ import annotations

import io
import json

import pytest
from pydantic import SecretStr

from router.errors import ProviderRequestError
from router.logging import configure_logging, get_logger
from router.router import UnifiedLLMAdapter
from router.settings import RouterSettings, pool_entry_settings
from router.text.redaction import redact_text

# Strong secrets of no known key shape: only their registration can catch them.
POOL_A = "pool-key-Qm7vXz2Lw9Rt4Hk8"
POOL_B = "pool-key-Jc5nBy8Pd3Fs6Gw1"

EXAMPLE = {
    "openai": [{"openai_api_key": POOL_A}, {"openai_api_key": POOL_B}],
    "vertex": [
        {"google_cloud_project": "p1"},
        {"google_cloud_project": "p2", "google_cloud_location": "europe-west4"},
    ],
}


def from_environment(monkeypatch: pytest.MonkeyPatch, pools: object) -> RouterSettings:
    monkeypatch.setenv("GROUNDING_ROUTER_CREDENTIAL_POOLS", json.dumps(pools))
    return RouterSettings(_env_file=None)


def test_pools_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The JSON setting gives each vendor its list of credential sets, in order."""
    settings = from_environment(monkeypatch, EXAMPLE)
    openai = settings.credential_pools["openai"]
    assert [entry.overrides() for entry in settings.credential_pools["vertex"]] == [
        {"google_cloud_project": "p1"},
        {"google_cloud_project": "p2", "google_cloud_location": "europe-west4"},
    ]
    keys = [entry.openai_api_key for entry in openai]
    assert [key.get_secret_value() for key in keys if key is not None] == [POOL_A, POOL_B]


def test_worker_i_takes_entry_i_modulo_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entry i % len(pool) of each vendor overrides that vendor's fields; the rest stay."""
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    settings = from_environment(monkeypatch, EXAMPLE)
    for number, (key, project, location) in enumerate(
        [
            (POOL_A, "p1", "us-central1"),
            (POOL_B, "p2", "europe-west4"),
            (POOL_A, "p1", "us-central1"),
        ]
    ):
        worker = pool_entry_settings(settings, number)
        assert worker.openai_api_key == SecretStr(key)
        assert (worker.google_cloud_project, worker.google_cloud_location) == (project, location)
        assert worker.gemini_api_key == settings.gemini_api_key
        assert worker.timeout_s == settings.timeout_s


def test_without_pools_the_single_keys_are_used_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No pool set: every worker number gets the settings themselves."""
    settings = RouterSettings(_env_file=None)
    assert settings.credential_pools == {}
    assert pool_entry_settings(settings, 3) is settings


@pytest.mark.parametrize(
    ("pools", "named"),
    [
        ({"openai": [{"openai_api_key": "k1"}, {"gemini_api_key": POOL_B}]}, "['openai'][1]"),
        ({"vertex": [{"google_cloud_project": "p1", "openai_api_key": POOL_B}]}, "['vertex'][0]"),
        ({"openai": [{"openai_api_key": "k1", "api_key": POOL_B}]}, "openai.0.api_key"),
        ({"openai": [{}]}, "['openai'][0] sets nothing"),
        ({"openai": [{"openai_api_key": ""}]}, "['openai'][0]: 'openai_api_key' is empty"),
        ({"openai": []}, "['openai'] is empty"),
        ({"acme": [{"openai_api_key": POOL_B}]}, "credential_pools.acme"),
    ],
    ids=["other-vendors-field", "key-in-vertex", "unknown-field", "empty-entry", "empty-value",
         "empty-pool", "unknown-vendor"],
)  # fmt: skip
def test_a_bad_pool_is_refused_naming_where(
    monkeypatch: pytest.MonkeyPatch, pools: object, named: str
) -> None:
    """A pool entry setting another vendor's field, an unknown field, nothing or an empty
    value, and an unknown vendor are refused at start-up, saying where, never quoting a key."""
    with pytest.raises(ValueError, match="credential_pools") as refused:
        from_environment(monkeypatch, pools)
    assert named in str(refused.value)
    assert POOL_B not in str(refused.value)


def test_a_field_of_another_vendor_names_the_field_and_what_is_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The error says which field is wrong and which ones the vendor takes."""
    with pytest.raises(ValueError, match="credential_pools") as refused:
        from_environment(monkeypatch, {"gemini": [{"openai_api_key": POOL_B}]})
    message = str(refused.value)
    assert "credential_pools['gemini'][0]: 'openai_api_key'" in message
    assert "allowed: gemini_api_key" in message


def test_pooled_keys_are_secrets_in_repr_and_named_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """repr never shows a pooled key; named_secrets lists every one, in every worker's settings
    (each registers them all, so a row or log of any worker is redacted of every key)."""
    settings = from_environment(monkeypatch, EXAMPLE)
    for shown in (repr(settings), str(settings), repr(pool_entry_settings(settings, 1))):
        assert POOL_A not in shown
        assert POOL_B not in shown
    assert "google_cloud_project='p2'" in repr(settings)
    for number in range(2):
        secrets = pool_entry_settings(settings, number).named_secrets()
        assert {POOL_A, POOL_B} <= set(secrets.values())
        assert "GROUNDING_ROUTER_CREDENTIAL_POOLS[openai][1].OPENAI_API_KEY" in secrets


async def test_a_router_with_pools_redacts_every_pooled_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once a router is built with pooled settings, neither key reaches a log line, an error
    message or a row's provider content."""
    settings = from_environment(monkeypatch, EXAMPLE)
    async with UnifiedLLMAdapter(pool_entry_settings(settings, 0)):
        pass
    stream = io.StringIO()
    configure_logging(json_lines=True, stream=stream)
    get_logger("router.test").warning("provider_call_failed", detail=f"key {POOL_B} refused")
    error = ProviderRequestError(f"refused {POOL_A} and {POOL_B}")
    row = json.dumps({"response": {"content": f"quoted {POOL_B}"}})
    for text in (stream.getvalue(), str(error), redact_text(row, shapes=False)):
        assert POOL_A not in text
        assert POOL_B not in text
        assert "REDACTED" in text
