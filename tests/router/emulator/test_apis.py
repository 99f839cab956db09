"""The emulator's API rows: one per registered vendor, each giving its SDK's base URL."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from adapters.registry import vendors
from router.emulated import emulated_settings
from router.emulator import Emulator
from router.emulator.apis import API_NAMES, APIS, BY_NAME, api_of_path, route


@pytest.mark.parametrize("vendor", vendors())
def test_every_registered_vendor_has_exactly_one_api_row(vendor: str) -> None:
    """Each vendor of the registry is served by one emulator API row, named as the vendor."""
    assert [api.name for api in APIS].count(vendor) == 1


def test_every_api_row_serves_a_registered_vendor() -> None:
    """No row is left over: the rows and the registry name the same vendors."""
    assert sorted(API_NAMES) == sorted(vendors())


def test_one_row_answers_the_paths_no_api_serves() -> None:
    """Exactly one API shapes the 404 of an unknown path, and api_of_path falls back to it."""
    fallbacks = [api for api in APIS if api.answers_unknown_paths]
    assert len(fallbacks) == 1
    assert api_of_path("/no/such/endpoint") is fallbacks[0]


@pytest.mark.parametrize("vendor", vendors())
def test_base_url_reaches_the_vendors_api(emulator: Emulator, vendor: str) -> None:
    """base_url(vendor) is the origin plus the row's suffix, and the old property says the same."""
    url = emulator.base_url(vendor)
    assert url == f"http://127.0.0.1:{emulator.port}{BY_NAME[vendor].base_path}"
    assert getattr(emulator, f"{vendor}_base_url") == url


@pytest.mark.parametrize("vendor", vendors())
def test_emulated_settings_point_each_vendor_at_its_base_url(
    emulator: Emulator, vendor: str
) -> None:
    """The settings of an emulated run carry base_url(vendor) for every vendor."""
    settings = emulated_settings(emulator)
    assert getattr(settings, f"{vendor}_base_url") == emulator.base_url(vendor)


def test_base_url_of_an_unknown_api_is_refused(emulator: Emulator) -> None:
    """An API the emulator does not speak is a ValueError naming the ones it does."""
    with pytest.raises(ValueError, match="'openai'"):
        emulator.base_url("teapot")


@pytest.mark.parametrize("vendor", vendors())
def test_an_unauthorised_request_is_answered_by_its_api(emulator: Emulator, vendor: str) -> None:
    """A request without a credential reaches the vendor's API under base_url and is refused."""
    api = BY_NAME[vendor]
    paths = {
        "openai": "/responses",
        "vertex": "/v1beta1/projects/p/locations/l/publishers/google/models/m:generateContent",
        "gemini": "/v1beta/models/m:generateContent",
        "perplexity": "/chat/completions",
        "openrouter": "/chat/completions",
        "anthropic": "/v1/messages",
    }
    url = emulator.base_url(vendor) + paths[vendor]
    assert route("POST", url.split(str(emulator.port), 1)[1], {}) is not None
    request = urllib.request.Request(url, data=json.dumps({}).encode(), method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    refused.value.close()
    assert refused.value.code in (401, 403)
    assert emulator.requests[-1].api == api.name
