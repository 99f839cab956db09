"""What a provider cannot do is refused by the router, from the registry, before any call.

Domain filters (``allowed_domains`` / ``blocked_domains``, both at once, how many), search
options (``search_context_size``, ``search_recency``) and document parts are checked against
the vendor's registry row; the error names the vendor, the field and what the provider
does support. Requests a provider can serve reach its adapter with the filter in place.
"""

from __future__ import annotations

from typing import Any

import pytest

from adapters.registry import PROVIDERS
from router.capabilities import check_request
from router.emulator import Emulator
from router.errors import RequestValidationError
from router.router import UnifiedLLMAdapter
from router.types import LLMRequest
from support.emulated import MODELS, emulator_settings

DOCUMENT = {"type": "document", "title": "Memo", "source": "Sales grew 4%."}


def _request(vendor: str, **fields: Any) -> LLMRequest:
    question = fields.pop("content", "What is the capital of France?")
    return LLMRequest.model_validate(
        {
            "vendor": vendor,
            "model": MODELS[vendor],
            "messages": [{"role": "user", "content": question}],
            "grounded": True,
            **fields,
        }
    )


FILTER_CASES = [
    (vendor, name)
    for vendor, row in PROVIDERS.items()
    for name in ("allowed_domains", "blocked_domains")
    if not getattr(row.capabilities, name)
]


@pytest.mark.parametrize(("vendor", "name"), FILTER_CASES)
def test_a_missing_filter_is_a_request_error_naming_what_exists(vendor: str, name: str) -> None:
    """A filter the provider lacks: RequestValidationError with the vendor and its filters."""
    with pytest.raises(RequestValidationError) as raised:
        check_request(_request(vendor, **{name: ["example.com"]}))
    error = raised.value
    assert error.field == name
    assert repr(vendor) in str(error)
    other = "blocked_domains" if name == "allowed_domains" else "allowed_domains"
    capabilities = PROVIDERS[vendor].capabilities
    expected = f"supports only {other}" if getattr(capabilities, other) else "no domain filter"
    assert expected in str(error)


def test_the_documented_filters_per_provider() -> None:
    """OpenAI allows, Vertex blocks, the Gemini API has none, the others do both (README)."""
    table = {
        vendor: (row.capabilities.allowed_domains, row.capabilities.blocked_domains)
        for vendor, row in PROVIDERS.items()
    }
    assert table["openai"] == (True, False)
    assert table["vertex"] == (False, True)
    assert table["gemini"] == (False, False)
    assert table["anthropic"] == (True, True)
    assert table["perplexity"] == (True, True)
    assert table["openrouter"] == (True, True)


BOTH_FILTERS = [
    vendor
    for vendor, row in PROVIDERS.items()
    if row.capabilities.allowed_domains
    and row.capabilities.blocked_domains
    and not row.capabilities.domain_filters_together
]


@pytest.mark.parametrize("vendor", BOTH_FILTERS)
def test_both_filters_in_one_request_are_refused(vendor: str) -> None:
    """A provider with both lists takes one or the other: both at once is a request error."""
    request = _request(vendor, allowed_domains=["who.int"], blocked_domains=["x.com"])
    with pytest.raises(RequestValidationError, match="not both") as raised:
        check_request(request)
    assert raised.value.field == "allowed_domains"


def test_more_domains_than_the_provider_takes_are_refused() -> None:
    """Perplexity's filter takes 20 domains: 21 is a request error that says so."""
    assert PROVIDERS["perplexity"].capabilities.max_domains == 20
    check_request(_request("perplexity", blocked_domains=[f"d{n}.com" for n in range(20)]))
    with pytest.raises(RequestValidationError, match="at most 20 domains, got 21") as raised:
        check_request(_request("perplexity", blocked_domains=[f"d{n}.com" for n in range(21)]))
    assert raised.value.field == "blocked_domains"


OPTION_VALUES = {"search_context_size": "high", "search_recency": "week"}
OPTION_CASES = [
    (vendor, option)
    for vendor, row in PROVIDERS.items()
    for option in OPTION_VALUES
    if not getattr(row.capabilities, option)
]


@pytest.mark.parametrize(("vendor", "option"), OPTION_CASES)
def test_a_missing_search_option_is_a_request_error_naming_who_has_it(
    vendor: str, option: str
) -> None:
    """A search option the provider lacks: RequestValidationError naming the vendors with it."""
    with pytest.raises(RequestValidationError, match="has no such search option") as raised:
        check_request(_request(vendor, **{option: OPTION_VALUES[option]}))
    assert raised.value.field == option
    assert "'perplexity'" in str(raised.value)


def test_the_documented_search_options_per_provider() -> None:
    """Context size: OpenAI and Perplexity; recency: Perplexity only (what the README states)."""
    table = {
        vendor: (row.capabilities.search_context_size, row.capabilities.search_recency)
        for vendor, row in PROVIDERS.items()
        if row.capabilities.search_context_size or row.capabilities.search_recency
    }
    assert table == {"openai": (True, False), "perplexity": (True, True)}


@pytest.mark.parametrize(
    ("option", "value"), [("search_context_size", "huge"), ("search_recency", "decade")]
)
def test_search_option_values_are_validated(option: str, value: str) -> None:
    """A value outside the option's list is a request error on that field."""
    with pytest.raises(RequestValidationError, match=option):
        _request("perplexity", **{option: value})


def test_search_option_values_ignore_case() -> None:
    """ "High" and "WEEK" read as "high" and "week", as vendor names do."""
    request = _request("perplexity", search_context_size="High", search_recency="WEEK")
    assert (request.search_context_size, request.search_recency) == ("high", "week")


@pytest.mark.parametrize(
    "vendor", [v for v, row in PROVIDERS.items() if not row.capabilities.documents]
)
def test_document_parts_need_a_provider_that_cites_documents(vendor: str) -> None:
    """Document parts to a provider without documents: a request error naming who has them."""
    parts = [{"type": "text", "text": "Summarise."}, DOCUMENT]
    with pytest.raises(RequestValidationError, match="does not accept document parts") as raised:
        check_request(_request(vendor, content=parts))
    assert "'anthropic'" in str(raised.value)


@pytest.mark.parametrize("vendor", [v for v in PROVIDERS if v != "anthropic"])
def test_text_parts_are_fine_everywhere(vendor: str) -> None:
    """A message given as text parts only is accepted by every provider."""
    check_request(_request(vendor, content=[{"type": "text", "text": "Hello?"}]))


def test_the_router_refuses_before_any_call() -> None:
    """route() raises the capability error and sends nothing."""
    with Emulator() as emulator, UnifiedLLMAdapter(emulator_settings(emulator)) as router:
        with pytest.raises(RequestValidationError):
            router.route(_request("vertex", allowed_domains=["example.com"]))
        assert emulator.requests == []


def test_openai_sends_allowed_domains_as_filters() -> None:
    """OpenAI: allowed_domains become the web_search tool's filters.allowed_domains."""
    with Emulator() as emulator, UnifiedLLMAdapter(emulator_settings(emulator)) as router:
        router.route(_request("openai", allowed_domains=["who.int", "Europa.eu"]))
        (tool,) = emulator.requests[0].json["tools"]
    assert tool["filters"] == {"allowed_domains": ["who.int", "europa.eu"]}


def test_openai_sends_search_context_size_in_the_tool() -> None:
    """OpenAI: search_context_size is the web_search tool's own field."""
    with Emulator() as emulator, UnifiedLLMAdapter(emulator_settings(emulator)) as router:
        router.route(_request("openai", search_context_size="low"))
        (tool,) = emulator.requests[0].json["tools"]
    assert tool["search_context_size"] == "low"


def test_vertex_sends_blocked_domains_as_exclude_domains() -> None:
    """Vertex: blocked_domains become GoogleSearch.exclude_domains."""
    with Emulator() as emulator, UnifiedLLMAdapter(emulator_settings(emulator)) as router:
        router.route(_request("vertex", blocked_domains=["pinterest.com"]))
        (tool,) = emulator.requests[0].json["tools"]
    # google-genai writes this field in snake_case; the API's JSON parser takes both spellings.
    assert tool == {"googleSearch": {"exclude_domains": ["pinterest.com"]}}


def test_vertex_without_filter_sends_a_bare_google_search() -> None:
    """No filter: the Google Search tool as before, with no excludeDomains."""
    with Emulator() as emulator, UnifiedLLMAdapter(emulator_settings(emulator)) as router:
        router.route(_request("vertex"))
        (tool,) = emulator.requests[0].json["tools"]
    assert tool == {"googleSearch": {}}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("allowed_domains", [], "non-empty list"),
        ("blocked_domains", ["a b.com"], "non-empty list"),
    ],
)
def test_domain_lists_are_validated(field: str, value: list[str], message: str) -> None:
    """An empty list, or a domain with spaces, is a request error on that field."""
    with pytest.raises(RequestValidationError, match=message):
        _request("anthropic", **{field: value})
