"""The contract every registered provider keeps on the wire, one suite for all of them.

Each provider's real SDK client runs against the loopback emulator through its adapter, sync and
async: every fault kind the emulator knows is the router error its row names (class, reason,
HTTP status, Retry-After, the vendor, no key in the text, one request: SDK retries are off), a
reply without a search or a citation is read as such, a reply delivered slowly within the read
timeout is answered whole, and a missing key is a ``ConfigurationError`` before any request.

What differs between providers is data: :data:`CONTRACTS` holds one row per vendor, its error
kinds derived from the common table with the provider's own deviations written out. A registry
row without a contract row fails here, so a new provider is held to the same contract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import pytest

from adapters.base import AdapterResult
from adapters.registry import provider, vendors
from router.emulator import Emulator
from router.errors import ConfigurationError, RouterError
from router.settings import RouterSettings
from router.types import LLMRequest
from support.emulated import emulator_settings
from support.wire_faults import SLOW_KINDS, fault_table_gaps, fault_timeout_s, faulted_prompt


class Fault(NamedTuple):
    """The router error a fault kind becomes."""

    error: str
    reason: str
    status_code: int | None
    retry_after_s: float | None = None


class Reading(NamedTuple):
    """How a reply that answers but lacks grounding evidence is read."""

    grounded: bool
    cited: bool
    warned: bool


# The fault kinds (with their arguments) every provider meets, and what they become unless a
# provider's row says otherwise.
COMMON_FAULTS: Mapping[str, Fault] = {
    "429:2": Fault("ProviderTransientError", "rate_limited", 429, 2.0),
    "500": Fault("ProviderTransientError", "server_error", 500),
    "503:5": Fault("ProviderTransientError", "server_error", 503, 5.0),
    "529": Fault("ProviderTransientError", "server_error", 529),
    "400": Fault("ProviderRequestError", "bad_request", 400),
    "401": Fault("ProviderRequestError", "auth", 401),
    "hang": Fault("ProviderTransientError", "timeout", None),
    "drop": Fault("ProviderTransientError", "connection", None),
    "truncate": Fault("ProviderTransientError", "truncated_response", None),
    "non_json": Fault("ResponseParseError", "non_json_response", None),
    "html": Fault("ProviderTransientError", "server_error", 502),
}
COMMON_READINGS: Mapping[str, Reading] = {
    "no_search": Reading(grounded=False, cited=False, warned=False),
    "no_citations": Reading(grounded=True, cited=False, warned=True),
    "empty_grounding": Reading(grounded=False, cited=False, warned=False),
}
# google-genai reports the 200 of a cut or non-JSON body as the status it came with.
_GOOGLE_BODY_FAULTS = {
    "truncate": Fault("ProviderTransientError", "truncated_response", 200),
    "non_json": Fault("ResponseParseError", "non_json_response", 200),
}


@dataclass(frozen=True)
class Contract:
    """One provider's row: its credentials, the settings a missing key clears, and where its
    faults and readings differ from the common tables."""

    credentials: Mapping[str, str]
    missing: tuple[str, ...]
    missing_setting: str
    also_named: tuple[str, ...] = ()
    fault_deviations: Mapping[str, Fault] = field(default_factory=dict)
    reading_deviations: Mapping[str, Reading] = field(default_factory=dict)

    @property
    def faults(self) -> dict[str, Fault]:
        return {**COMMON_FAULTS, **self.fault_deviations}

    @property
    def readings(self) -> dict[str, Reading]:
        return {**COMMON_READINGS, **self.reading_deviations}


CONTRACTS: Mapping[str, Contract] = {
    "openai": Contract(
        credentials={"openai_api_key": "sk-contract-openai-5c1e"},
        missing=("openai_api_key",),
        missing_setting="OPENAI_API_KEY",
    ),
    "vertex": Contract(
        credentials={"vertex_access_token": "vx-contract-token-8d2f"},
        missing=("google_cloud_project",),
        missing_setting="GOOGLE_CLOUD_PROJECT",
        fault_deviations=_GOOGLE_BODY_FAULTS,
    ),
    "gemini": Contract(
        credentials={"gemini_api_key": "gm-contract-key-3b7a"},
        missing=("gemini_api_key",),
        missing_setting="GEMINI_API_KEY",
        also_named=("GOOGLE_API_KEY",),
        fault_deviations={
            # The Gemini API answers a bad key with 400 API_KEY_INVALID.
            "401": Fault("ProviderRequestError", "auth", 400),
            **_GOOGLE_BODY_FAULTS,
        },
    ),
    "perplexity": Contract(
        credentials={"perplexity_api_key": "pplx-contract-key-9e4c"},
        missing=("perplexity_api_key",),
        missing_setting="PERPLEXITY_API_KEY",
        # Sonar shows a search only by the sources it cites: none cited, none searched.
        reading_deviations={"no_citations": Reading(grounded=False, cited=False, warned=False)},
    ),
    "openrouter": Contract(
        credentials={"openrouter_api_key": "sk-or-contract-key-2a6d"},
        missing=("openrouter_api_key",),
        missing_setting="OPENROUTER_API_KEY",
    ),
    "anthropic": Contract(
        credentials={"anthropic_api_key": "sk-ant-contract-key-7f0b"},
        missing=("anthropic_api_key",),
        missing_setting="ANTHROPIC_API_KEY",
        # overloaded_error: Anthropic's own status for a service at capacity.
        fault_deviations={"529": Fault("ProviderTransientError", "overloaded", 529)},
    ),
}

FAULT_CASES = [(vendor, kind) for vendor in CONTRACTS for kind in CONTRACTS[vendor].faults]
READING_CASES = [(vendor, kind) for vendor in CONTRACTS for kind in CONTRACTS[vendor].readings]
SLOW_CASES = [(vendor, kind) for vendor in CONTRACTS for kind in SLOW_KINDS]


def _ids(case: tuple[str, str]) -> str:
    return "-".join(case)


@pytest.fixture
def make_adapter() -> Iterator[Callable[[str], Any]]:
    """A fresh adapter of a vendor, closed (sync and async clients) after the test."""
    made: list[Any] = []

    def build(vendor: str) -> Any:
        made.append(provider(vendor).new_adapter())
        return made[-1]

    yield build
    for adapter in made:
        adapter.close()


def _settings(emulator: Emulator, vendor: str, **overrides: Any) -> RouterSettings:
    emulator.clear_requests()
    options: dict[str, Any] = {"timeout_s": 5.0, **CONTRACTS[vendor].credentials, **overrides}
    settings: RouterSettings = emulator_settings(emulator, **options)
    return settings


def _request(vendor: str, kind: str | None = None) -> LLMRequest:
    question = "What is the weather in Rome?" if kind is None else faulted_prompt(kind)
    return LLMRequest.model_validate(
        {
            "vendor": vendor,
            "model": provider(vendor).default_model,
            "messages": [{"role": "user", "content": question}],
            "grounded": True,
            "timeout_s": 10.0 if kind is None else fault_timeout_s(kind.partition(":")[0]),
        }
    )


def _outcome(call: Callable[[], AdapterResult]) -> AdapterResult | RouterError:
    try:
        return call()
    except RouterError as error:
        return error


async def _aoutcome(adapter: Any, request: LLMRequest, settings: RouterSettings) -> Any:
    try:
        return await adapter.acomplete(request, settings)
    except RouterError as error:
        return error
    finally:
        await adapter.aclose()


def _check_fault(vendor: str, kind: str, outcome: AdapterResult | RouterError) -> None:
    expected = CONTRACTS[vendor].faults[kind]
    assert isinstance(outcome, RouterError), f"{vendor} answered fault {kind}"
    seen = Fault(
        type(outcome).__name__,
        str(outcome.reason),
        outcome.status_code,
        getattr(outcome, "retry_after_s", None),
    )
    assert seen == expected
    assert outcome.vendor == vendor
    assert outcome.__cause__ is not None  # translated at the boundary: raise ... from exc
    for secret in CONTRACTS[vendor].credentials.values():
        assert secret not in str(outcome)


def test_every_registered_provider_has_a_contract() -> None:
    """A registry row without a contract row (or the reverse) fails: no provider is exempt."""
    assert sorted(CONTRACTS) == sorted(vendors())


@pytest.mark.parametrize("vendor", list(CONTRACTS))
def test_the_tables_name_every_fault_kind(vendor: str) -> None:
    """Each provider's faults, readings and the slow kinds name every kind the emulator has."""
    contract = CONTRACTS[vendor]
    kinds = [kind.partition(":")[0] for kind in (*contract.faults, *contract.readings)]
    assert fault_table_gaps(kinds, SLOW_KINDS) == set()


@pytest.mark.parametrize("case", FAULT_CASES, ids=_ids)
def test_a_fault_is_the_router_error_its_row_names(
    case: tuple[str, str], emulator: Emulator, make_adapter: Callable[[str], Any]
) -> None:
    """Each fault kind is the row's router error, after exactly one request (no SDK retry)."""
    vendor, kind = case
    settings = _settings(emulator, vendor)
    adapter = make_adapter(vendor)
    _check_fault(vendor, kind, _outcome(lambda: adapter.complete(_request(vendor, kind), settings)))
    assert len(emulator.requests) == 1


@pytest.mark.parametrize("case", FAULT_CASES, ids=_ids)
async def test_a_fault_is_the_same_router_error_async(
    case: tuple[str, str], emulator: Emulator, make_adapter: Callable[[str], Any]
) -> None:
    """The async client (its own transport) translates each fault exactly as the sync one."""
    vendor, kind = case
    settings = _settings(emulator, vendor)
    outcome = await _aoutcome(make_adapter(vendor), _request(vendor, kind), settings)
    _check_fault(vendor, kind, outcome)
    assert len(emulator.requests) == 1


@pytest.mark.parametrize("case", READING_CASES, ids=_ids)
def test_a_reply_without_evidence_is_read_as_its_row_says(
    case: tuple[str, str], emulator: Emulator, make_adapter: Callable[[str], Any]
) -> None:
    """No search, a search citing nothing, empty grounding: grounded, cited and warned as listed."""
    vendor, kind = case
    result = make_adapter(vendor).complete(_request(vendor, kind), _settings(emulator, vendor))
    seen = Reading(result.grounded_effective, bool(result.citations), bool(result.warnings))
    assert seen == CONTRACTS[vendor].readings[kind]


@pytest.mark.parametrize("case", SLOW_CASES, ids=_ids)
def test_slow_delivery_within_the_read_timeout_is_answered(
    case: tuple[str, str], emulator: Emulator, make_adapter: Callable[[str], Any]
) -> None:
    """A reply trickled for 0.2 s reaches the adapter whole (the deadline is the router's)."""
    vendor, kind = case
    request = _request(vendor, f"{kind}:0.2")
    assert make_adapter(vendor).complete(request, _settings(emulator, vendor)).content


@pytest.mark.parametrize("case", SLOW_CASES, ids=_ids)
async def test_slow_delivery_is_answered_async(
    case: tuple[str, str], emulator: Emulator, make_adapter: Callable[[str], Any]
) -> None:
    """The async client waits out a slow delivery within its read timeout as the sync one does."""
    vendor, kind = case
    outcome = await _aoutcome(
        make_adapter(vendor), _request(vendor, f"{kind}:0.2"), _settings(emulator, vendor)
    )
    assert isinstance(outcome, AdapterResult)
    assert outcome.content


@pytest.mark.parametrize("vendor", list(CONTRACTS))
def test_a_missing_key_is_a_configuration_error_before_any_request(
    vendor: str, emulator: Emulator, make_adapter: Callable[[str], Any]
) -> None:
    """Without its key (or project) the call fails naming the setting, and nothing is sent."""
    contract = CONTRACTS[vendor]
    settings = _settings(emulator, vendor, **dict.fromkeys(contract.missing))
    with pytest.raises(ConfigurationError) as raised:
        make_adapter(vendor).complete(_request(vendor), settings)
    assert raised.value.setting == contract.missing_setting
    for name in (contract.missing_setting, *contract.also_named):
        assert name in str(raised.value)
    assert emulator.requests == []
