"""The cost of one reply: its tokens at the model's prices plus the search fee its searches owe.

Tokens: the input tokens not read from the cache at the input price, the cached ones at the
cached input price (the input price when the table has none), the output tokens (reasoning
included) at the output price; above a model's ``long_context`` threshold its long-context prices
apply. A count the reply did not report counts as zero.

Searches, in the unit the vendor bills (the first matching fee of its table):

- ``call``: each search tool call the reply shows (OpenAI's ``web_search_call`` items);
- ``query``: each distinct, non-empty search query the reply lists (Gemini 3 on Vertex);
- ``grounded_prompt``: one when the reply lists a search query, else none (Gemini 2.x): a reply
  grounded on URL context or file search only ran no web search.

A cost the provider reports itself (``Usage.reported_cost``) is used as it is, not estimated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from router.pricing.table import ModelPrice, VendorPrices
from router.types import Cost, SearchUnit, Usage

__all__ = ["Metered", "estimate_cost", "reported_cost", "search_units"]

_PER_MTOK = 1_000_000
_PER_1K = 1_000


@dataclass(frozen=True, slots=True)
class Metered:
    """What a reply shows it consumed: its usage and the evidence of its searches."""

    usage: Usage
    tool_calls: int = 0
    queries: Sequence[str] = ()


def estimate_cost(prices: VendorPrices, priced_as: str, metered: Metered) -> Cost:
    """The estimated cost of a reply of the table's model ``priced_as``."""
    model = prices.models[priced_as]
    usage = metered.usage
    tokens = _token_cost(model, usage)
    fee = prices.search_fee(priced_as, usage.search_tool)
    units = search_units(fee.unit, metered) if fee is not None else 0
    searches = units * fee.per_1k / _PER_1K if fee is not None else 0.0
    return Cost(
        tokens=tokens,
        searches=searches,
        total=tokens + searches,
        currency=prices.currency,
        estimated=True,
        search_unit=fee.unit if fee is not None else None,
        search_units=units,
        priced_as=priced_as,
        prices_as_of=model.as_of or prices.as_of,
    )


def reported_cost(usage: Usage, currency: str) -> Cost | None:
    """The cost the provider reported in its reply, or None when it reported none."""
    if usage.reported_cost is None:
        return None
    searches = usage.reported_search_cost or 0.0
    return Cost(
        tokens=usage.reported_cost - searches,
        searches=searches,
        total=usage.reported_cost,
        currency=currency,
        estimated=False,
    )


def search_units(unit: SearchUnit, metered: Metered) -> int:
    """How many billable units of ``unit`` the reply's searches make."""
    if unit == "call":
        return max(0, metered.tool_calls)
    queries = len({query.strip() for query in metered.queries if query.strip()})
    if unit == "query":
        return queries
    return min(1, queries)


def _token_cost(model: ModelPrice, usage: Usage) -> float:
    input_tokens = usage.input_tokens or 0
    cached = min(usage.cached_input_tokens or 0, input_tokens)
    tier = model.long_context
    if tier is not None and input_tokens > tier.above_input_tokens:
        input_price, cached_price, output_price = (
            tier.input_per_mtok,
            tier.cached_input_per_mtok,
            tier.output_per_mtok,
        )
    else:
        input_price, cached_price, output_price = (
            model.input_per_mtok,
            model.cached_input_per_mtok,
            model.output_per_mtok,
        )
    if cached_price is None:
        cached_price = input_price
    return (
        (input_tokens - cached) * input_price
        + cached * cached_price
        + (usage.output_tokens or 0) * output_price
    ) / _PER_MTOK
