"""The provider registry: a row per vendor, its adapter loaded lazily and shaped as needed."""

from __future__ import annotations

import inspect
import subprocess
import sys
from typing import get_args

import pytest

from adapters.base import Adapter
from adapters.registry import PROVIDERS, ProviderRow, provider, vendors
from router.errors import RequestValidationError
from router.types import LLMRequest, Vendor
from support.settings_names import setting_variables

ROWS = list(PROVIDERS.values())
# The settings of one provider, by the prefix of their names (``providers`` lists them).
SETTING_PREFIXES = {
    "openai": ("openai_",),
    "vertex": ("vertex_", "google_cloud_"),
    "gemini": ("gemini_",),
    "perplexity": ("perplexity_",),
    "openrouter": ("openrouter_",),
    "anthropic": ("anthropic_",),
}
ADAPTER_METHODS = [
    name for name, member in vars(Adapter).items() if callable(member) and not name.startswith("_")
]


def test_every_vendor_of_the_request_literal_has_a_row() -> None:
    """The vendors a request may name and the registry's rows are the same set, in order."""
    assert vendors() == get_args(Vendor)
    assert get_args(LLMRequest.model_fields["vendor"].annotation) == vendors()


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.vendor)
def test_each_row_builds_an_adapter_of_its_vendor(row: ProviderRow) -> None:
    """The adapter is built without arguments, names its vendor and closes cleanly."""
    adapter = row.new_adapter()
    assert adapter.vendor == row.vendor
    adapter.close()


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.vendor)
def test_each_adapter_satisfies_the_protocol(row: ProviderRow) -> None:
    """Every method of the Adapter protocol is there, async where the protocol's is."""
    adapter_class = row.adapter_class()
    assert ADAPTER_METHODS  # the protocol was read
    for name in ADAPTER_METHODS:
        method = getattr(adapter_class, name)
        expected_async = inspect.iscoroutinefunction(getattr(Adapter, name))
        assert inspect.iscoroutinefunction(method) is expected_async, name
        assert list(inspect.signature(method).parameters) == list(
            inspect.signature(getattr(Adapter, name)).parameters
        ), name


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.vendor)
def test_each_row_states_its_capabilities(row: ProviderRow) -> None:
    """A row says what its provider does, with offsets in one of the two known units."""
    assert row.capabilities.offset_unit in ("chars", "bytes")
    assert row.default_model.strip()
    assert row.settings
    assert row.adapter_path.startswith("adapters.")


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.vendor)
def test_each_row_lists_every_setting_of_its_provider(row: ProviderRow) -> None:
    """`grounding-router providers` names each setting the provider reads, and nothing else."""
    own = {
        name: variables
        for name, variables in setting_variables().items()
        if name.startswith(SETTING_PREFIXES[row.vendor])
    }
    assert own
    assert [name for name, variables in own.items() if variables[0] not in row.settings] == []
    known = {variable for variables in own.values() for variable in variables}
    assert set(row.settings) - known == set()


def test_an_unknown_vendor_is_a_request_error_naming_the_known_ones() -> None:
    """Asking the registry for a vendor it does not hold says which ones it does."""
    with pytest.raises(RequestValidationError) as raised:
        provider("claude-direct")
    assert "'claude-direct'" in str(raised.value)
    for vendor in vendors():
        assert repr(vendor) in str(raised.value)


def test_the_registry_loads_no_provider_package() -> None:
    """Reading the registry imports no provider package and no SDK."""
    code = (
        "import sys, adapters.registry as r; r.vendors(); r.provider('openai'); "
        "print(sorted(m for m in sys.modules if m.startswith(('adapters.openai', "
        "'adapters.vertex', 'openai', 'google.genai'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


# The SDK each vendor's adapter calls through.
SDK_MODULES = {
    "openai": "openai",
    "vertex": "google.genai",
    "gemini": "google.genai",
    "perplexity": "openai",
    "openrouter": "openai",
    "anthropic": "anthropic",
}


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.vendor)
def test_making_an_adapter_imports_its_sdk(row: ProviderRow) -> None:
    """The SDK comes with the adapter (a vendor's first use), so no call's deadline pays for
    importing it."""
    if row.vendor not in SDK_MODULES:
        pytest.fail(f"{row.vendor}: name its SDK module in SDK_MODULES")
    sdk = SDK_MODULES[row.vendor]
    code = (
        f"import sys; from adapters.registry import provider; row = provider({row.vendor!r}); "
        f"row.adapter_class(); before = {sdk!r} in sys.modules; row.new_adapter(); "
        f"print(before, {sdk!r} in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "True"]


STREAMING_METHODS = {
    "stream": inspect.isgeneratorfunction,
    "astream": inspect.isasyncgenfunction,
    "finish_stream": lambda method: not inspect.iscoroutinefunction(method),
    "afinish_stream": inspect.iscoroutinefunction,
}


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.vendor)
def test_each_row_names_a_reply_mapper_that_reads_offline(row: ProviderRow) -> None:
    """The reply mapper loads, and in its lenient mode reads even an empty reply."""
    mapper = row.reply_mapper()
    assert mapper is not None, "name the provider's reply mapper in reply_mapper_path"
    request = LLMRequest(
        vendor=row.vendor, model=row.default_model, messages=[{"role": "user", "content": "q"}]
    )
    result = mapper({}, request, strict=False)
    assert result.content == ""


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.vendor)
def test_each_row_names_a_stream_reader(row: ProviderRow) -> None:
    """The stream reader class loads and answers the stream-event question about a dict."""
    reader_class = row.stream_format()
    assert reader_class is not None, "name the provider's stream reader in stream_reader_path"
    assert reader_class.is_stream_event({}) is False


@pytest.mark.parametrize(
    "row", [row for row in ROWS if row.capabilities.streaming], ids=lambda row: row.vendor
)
def test_a_streaming_adapter_has_the_streaming_methods(row: ProviderRow) -> None:
    """stream is a generator, astream an async generator, and finish_stream has its twin."""
    adapter_class = row.adapter_class()
    for name, is_right_kind in STREAMING_METHODS.items():
        assert is_right_kind(getattr(adapter_class, name)), name
