"""Cost estimates: every response's tokens and search fees at the providers' list prices.

Prices are data: each provider package ships a ``prices.toml`` (see :mod:`router.pricing.table`
for the format), dated and sourced in its comments; a user's price file, named by the
``GROUNDING_ROUTER_PRICES`` setting, overrides and extends it. :class:`PriceBook` finds the
entry that prices a model (:mod:`router.pricing.names`) and :func:`estimate_cost` computes the
cost of one reply (:mod:`router.pricing.estimate` says how). Estimates are list prices: free
allowances, batch tiers and negotiated discounts are not applied.
"""

from __future__ import annotations

from router.pricing.book import PriceBook, read_user_prices
from router.pricing.estimate import Metered, estimate_cost, reported_cost, search_units
from router.pricing.names import find_model, name_forms
from router.pricing.table import (
    LongContextPrice,
    ModelPrice,
    SearchFee,
    VendorPrices,
    merge_prices,
    parse_price_file,
)

__all__ = [
    "LongContextPrice",
    "Metered",
    "ModelPrice",
    "PriceBook",
    "SearchFee",
    "VendorPrices",
    "estimate_cost",
    "find_model",
    "merge_prices",
    "name_forms",
    "parse_price_file",
    "read_user_prices",
    "reported_cost",
    "search_units",
]
