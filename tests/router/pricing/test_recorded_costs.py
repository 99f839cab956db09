"""The cost of real recorded replies, by hand: token counts and searches read off each body.

Each row is one recorded body of a vendor the router serves, mapped by the vendor's own reply
mapper, then priced with the built-in tables. The expected figures are worked out by hand from
the body's usage block and search evidence at the prices of the vendor's ``prices.toml``
(per million tokens; search fees per 1,000 units), so a change to a price, a token reading or a
search count shows up here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from adapters.anthropic.reply import map_message
from adapters.base import AdapterResult
from adapters.openai.reply import map_openai_reply
from adapters.registry import PROVIDERS
from adapters.vertex.apis import GEMINI, VERTEX
from adapters.vertex.citations import read_vertex_reply
from adapters.vertex.reply import single_result
from router.pricing import Metered, PriceBook
from router.respond import load_prices
from router.types import LLMRequest
from support.recorded import RECORDED_DIR, load_final_body

M = 1e-6  # one token at a price per million tokens


@dataclass(frozen=True)
class Case:
    file: str
    vendor: str
    priced_as: str
    tokens: float
    search_units: int
    per_search: float

    @property
    def searches(self) -> float:
        return self.search_units * self.per_search


CASES = [
    # gpt-5-2025-08-07 folds to gpt-5. 115,886 input of which 92,160 cached, 1,720 output;
    # six web_search_call items at $10 per 1,000 calls.
    Case(
        "pydantic-ai/openai_responses_news_3_citations.json",
        "openai",
        "gpt-5",
        (115_886 - 92_160) * 1.25 * M + 92_160 * 0.125 * M + 1_720 * 10.00 * M,
        6,
        0.010,
    ),
    # gpt-4.1 with web_search_preview, a non-reasoning model: $25 per 1,000 calls.
    Case(
        "prism/openai_responses_weather_encoded_query_url.json",
        "openai",
        "gpt-4.1",
        317 * 2.00 * M + 443 * 8.00 * M,
        1,
        0.025,
    ),
    # gpt-5-mini with web_search_preview, a reasoning model: $10 per 1,000 calls.
    Case(
        "vercel-ai/openai_responses_web_search_preview_33_sources.json",
        "openai",
        "gpt-5-mini",
        (12_733 - 3_584) * 0.25 * M + 3_584 * 0.025 * M + 684 * 2.00 * M,
        2,
        0.010,
    ),
    # Azure's gpt-4.1-mini with web_search_preview: two calls at the $25 rate.
    Case(
        "vercel-ai/azure_openai_responses_web_search_preview.json",
        "openai",
        "gpt-4.1-mini",
        10_188 * 0.40 * M + 405 * 1.60 * M,
        2,
        0.025,
    ),
    # gpt-5.2: two open_page and one find_in_page call, no search action, still three calls.
    Case(
        "prism/openai_responses_mixed_actions_no_utm.json",
        "openai",
        "gpt-5.2",
        9_204 * 1.75 * M + 336 * 14.00 * M,
        3,
        0.010,
    ),
    # gpt-4o with the generally available web_search tool: $10 per 1,000 calls.
    Case(
        "mirascope/openai_responses_gpt4o_12_citations_duplicates.json",
        "openai",
        "gpt-4o",
        17_668 * 2.50 * M + 711 * 10.00 * M,
        1,
        0.010,
    ),
    # A stream: the usage of its response.completed event (9,463 input, 8,320 cached).
    Case(
        "pydantic-ai/openai_responses_stream_weather_api_sources.sse.txt",
        "openai",
        "gpt-5",
        (9_463 - 8_320) * 1.25 * M + 8_320 * 0.125 * M + 582 * 10.00 * M,
        1,
        0.010,
    ),
    # Vertex gemini-2.5-flash: input 9 prompt + 61 tool-use, output 27 + 221 thinking; one
    # grounded prompt at $35 per 1,000.
    Case(
        "ruby_llm/vertex_gemini25flash_ruby_version_web_domain.json",
        "vertex",
        "gemini-2.5-flash",
        (9 + 61) * 0.30 * M + (27 + 221) * 2.50 * M,
        1,
        0.035,
    ),
    # A Vertex stream: the last chunk's usage (16 input, 226 output), one grounded prompt.
    Case(
        "pydantic-ai/vertex_gemini25flash_stream_web_domain.sse.txt",
        "vertex",
        "gemini-2.5-flash",
        16 * 0.30 * M + 226 * 2.50 * M,
        1,
        0.035,
    ),
    # Vertex gemini-3-flash-preview bills per search query: one query at $14 per 1,000.
    Case(
        "pydantic-ai/vertex_gemini3flash_weather_grounding.normalized.json",
        "vertex",
        "gemini-3-flash-preview",
        125 * 0.50 * M + (250 + 456) * 3.00 * M,
        1,
        0.014,
    ),
    # The same model through the Gemini Developer API ("gemini", the same price list): of the
    # queries ["", "largest city in Mexico by population"] the empty one is not billed.
    Case(
        "pydantic-ai/gemini3flash_grounding_title_missing.normalized.json",
        "gemini",
        "gemini-3-flash-preview",
        (440 + 86) * 0.50 * M + 27 * 3.00 * M,
        1,
        0.014,
    ),
    # gemini-2.5-pro (a Gemini API body) below its 200k long-context threshold: 17 + 119 input,
    # 201 + 213 output.
    Case(
        "pydantic-ai/gemini25pro_weather_grounding_a.json",
        "gemini",
        "gemini-2.5-pro",
        (17 + 119) * 1.25 * M + (201 + 213) * 10.00 * M,
        1,
        0.035,
    ),
    # URL context only: 32 + 2,395 tool-use input tokens, but no web search query, no fee.
    Case(
        "pydantic-ai/gemini25flash_url_context_grounding.normalized.json",
        "vertex",
        "gemini-2.5-flash",
        (32 + 2_395) * 0.30 * M + (41 + 47) * 2.50 * M,
        0,
        0.035,
    ),
    # claude-sonnet-4-20250514 folds to claude-sonnet-4. Input counts every prompt token:
    # 2,081 + 8,239 written to the cache (priced at the input rate) + 28,289 read from it;
    # 561 output; three web searches at $10 per 1,000.
    Case(
        "mirascope/anthropic_sonnet4_three_searches.json",
        "anthropic",
        "claude-sonnet-4",
        (2_081 + 8_239) * 3.00 * M + 28_289 * 0.30 * M + 561 * 15.00 * M,
        3,
        0.010,
    ),
    # claude-haiku-4-5-20251001: 11,642 input, 141 output, one search.
    Case(
        "ruby_llm/anthropic_haiku45_web_search.json",
        "anthropic",
        "claude-haiku-4-5",
        11_642 * 1.00 * M + 141 * 5.00 * M,
        1,
        0.010,
    ),
    # claude-3-5-haiku-20241022: 8,962 input, 330 output, one search.
    Case(
        "prism/anthropic_web_search_7_citations.json",
        "anthropic",
        "claude-3-5-haiku",
        8_962 * 0.80 * M + 330 * 4.00 * M,
        1,
        0.010,
    ),
    # claude-sonnet-4-6, named without a snapshot: 10,809 input, 644 output, one search.
    Case(
        "pydantic-ai/anthropic_web_search_13_citations.normalized.json",
        "anthropic",
        "claude-sonnet-4-6",
        10_809 * 3.00 * M + 644 * 15.00 * M,
        1,
        0.010,
    ),
    # An Anthropic stream: its message_delta usage (31,772 input, 644 output), two searches.
    Case(
        "pydantic-ai/anthropic_web_search_stream.sse.txt",
        "anthropic",
        "claude-sonnet-4",
        31_772 * 3.00 * M + 644 * 15.00 * M,
        2,
        0.010,
    ),
]

UNPRICED = ["gemini-cookbook/gemini_rest_google_stock_2025-02-06.json"]  # gemini-1.5-flash
REQUEST = LLMRequest.model_validate(
    {"vendor": "openai", "model": "gpt-5", "messages": [{"role": "user", "content": "q"}]}
)


def mapped(path: Path, vendor: str) -> AdapterResult:
    """The reply as the vendor's adapter maps it (streams: their final state)."""
    body = load_final_body(path)
    if vendor == "openai":
        return map_openai_reply(body, REQUEST)
    if vendor == "anthropic":
        return map_message(body, wants_json=False)
    api = GEMINI if vendor == "gemini" else VERTEX
    return single_result(read_vertex_reply(body, api=api), wants_json=False)


def priced(path: Path, vendor: str) -> tuple[AdapterResult, Metered]:
    result = mapped(path, vendor)
    metered = Metered(result.usage, result.tool_call_count, result.web_search_queries)
    return result, metered


@pytest.fixture(scope="module")
def book() -> PriceBook:
    return load_prices()


@pytest.mark.parametrize("case", CASES, ids=lambda case: Path(case.file).stem)
def test_recorded_reply_costs_what_its_body_says(case: Case, book: PriceBook) -> None:
    """Tokens at the model's prices plus the vendor's search fee, as worked out by hand."""
    result, metered = priced(RECORDED_DIR / case.file, case.vendor)
    cost = book.cost(case.vendor, (result.model_version,), metered)
    assert cost is not None
    assert cost.priced_as == case.priced_as
    assert cost.search_units == case.search_units
    assert cost.tokens == pytest.approx(case.tokens, rel=1e-9)
    assert cost.searches == pytest.approx(case.searches, rel=1e-9)
    assert cost.total == pytest.approx(case.tokens + case.searches, rel=1e-9)
    assert (cost.currency, cost.estimated, cost.prices_as_of) == ("USD", True, "2026-11-23")


@pytest.mark.parametrize("file", UNPRICED)
def test_recorded_reply_of_an_unpriced_model_has_no_cost(file: str, book: PriceBook) -> None:
    """A retired model the table leaves out gets no cost rather than a guessed one."""
    result, metered = priced(RECORDED_DIR / file, "vertex")
    assert book.cost("vertex", (result.model_version,), metered) is None


def test_every_priced_vendor_is_covered() -> None:
    """The table above prices a recorded reply of every vendor that ships a price table."""
    priced_vendors = {row.vendor for row in PROVIDERS.values() if row.price_file() is not None}
    assert priced_vendors
    assert {case.vendor for case in CASES} == priced_vendors
