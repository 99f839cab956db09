"""Price files: TOML text read into typed prices, one section per vendor.

A price file holds one table per vendor::

    [openai]
    currency = "USD"
    as_of = "2026-11-23"

    [[openai.search_fees]]          # the first fee whose tool and models match applies
    tool = "web_search_preview"     # optional: only when the reply used this search tool
    models = ["gpt-4o"]             # optional: only for these models (price table names)
    unit = "call"                   # call | query | grounded_prompt
    per_1k = 25.00                  # price of 1,000 units

    [openai.models]
    "gpt-5" = { input_per_mtok = 1.25, cached_input_per_mtok = 0.125, output_per_mtok = 10.00 }

A model may add ``aliases`` (other names priced the same) and ``long_context`` (the prices above
``above_input_tokens`` input tokens). Prices are finite and not negative (TOML's ``inf`` and
``nan`` are refused). Unknown keys, wrong types and values TOML reading cannot hold (an integer
past Python's 4,300-digit limit, nesting past the recursion limit) are errors that name the
file and the place, so a typo never prices silently at zero or at infinity.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from router.errors import ConfigurationError
from router.types import SearchUnit

__all__ = [
    "LongContextPrice",
    "ModelPrice",
    "SearchFee",
    "VendorPrices",
    "merge_prices",
    "parse_price_file",
]


# A price: finite and not negative (TOML has inf and nan; an infinite price costs NaN later).
Price = Annotated[float, Field(ge=0, allow_inf_nan=False)]
# How deep a price file may nest: far past any real one, well short of the recursion limit.
_MAX_NESTING = 32
_LONG_INTEGER = re.compile(r"[0-9][0-9_]{4299,}")
_KEY = re.compile(r"""([A-Za-z0-9_\-]+|"[^"\n]*"|'[^'\n]*')\s*=(?!=)""")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LongContextPrice(_Strict):
    """Token prices that apply when the input is longer than ``above_input_tokens``."""

    above_input_tokens: int = Field(gt=0)
    input_per_mtok: Price
    cached_input_per_mtok: Price | None = None
    output_per_mtok: Price


class ModelPrice(_Strict):
    """Token prices of one model, per million tokens; no cached price: cached input is input."""

    input_per_mtok: Price
    cached_input_per_mtok: Price | None = None
    output_per_mtok: Price
    long_context: LongContextPrice | None = None
    aliases: tuple[str, ...] = ()
    as_of: str | None = None


class SearchFee(_Strict):
    """A search fee: ``per_1k`` for 1,000 units, for the replies its filters match."""

    unit: SearchUnit
    per_1k: Price
    tool: str | None = None
    models: tuple[str, ...] | None = None

    def applies(self, model: str, tool: str | None) -> bool:
        """True when this fee covers a reply of ``model`` (a price table name) using ``tool``."""
        if self.tool is not None and self.tool != tool:
            return False
        return self.models is None or model in self.models


class VendorPrices(_Strict):
    """One vendor's prices: currency, date, search fees in order, and the models."""

    currency: str = "USD"
    as_of: str | None = None
    search_fees: tuple[SearchFee, ...] = ()
    models: Mapping[str, ModelPrice] = Field(default_factory=dict)

    def search_fee(self, model: str, tool: str | None) -> SearchFee | None:
        """The first search fee that covers ``model`` with ``tool``."""
        return next((fee for fee in self.search_fees if fee.applies(model, tool)), None)


def parse_price_file(text: str, *, source: str) -> dict[str, VendorPrices]:
    """The vendors' prices in a price file; a malformed file is a ``ConfigurationError``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"price file {source}: not valid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigurationError(
            f"price file {source}: {_place(text, _too_deep(text))}: nested too deeply"
        ) from None
    except ValueError as exc:  # an integer past Python's limit on digits
        found = _LONG_INTEGER.search(text)
        where = _place(text, found.start()) if found else "a value"
        raise ConfigurationError(
            f"price file {source}: {where}: a number TOML reading cannot hold ({exc})"
        ) from None
    tables: dict[str, VendorPrices] = {}
    for vendor, section in data.items():
        if not isinstance(section, dict):
            raise ConfigurationError(
                f"price file {source}: {vendor!r} must be a table of prices, such as [{vendor}]"
            )
        tables[vendor] = _vendor_prices(vendor, section, source)
    return tables


def merge_prices(base: VendorPrices | None, override: VendorPrices) -> VendorPrices:
    """``override`` laid over ``base``: its models replace or add, its search fees replace.

    Fields the override leaves at their defaults (no ``search_fees``, no ``as_of``) keep the
    base's.
    """
    if base is None:
        return override
    given = override.model_fields_set
    return VendorPrices(
        currency=override.currency if "currency" in given else base.currency,
        as_of=override.as_of if "as_of" in given else base.as_of,
        search_fees=override.search_fees if "search_fees" in given else base.search_fees,
        models={**base.models, **override.models},
    )


def _vendor_prices(vendor: str, section: dict[str, Any], source: str) -> VendorPrices:
    try:
        return VendorPrices.model_validate(section)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in (vendor, *error['loc']))}: {error['msg']}"
            for error in exc.errors(include_url=False)
        )
        raise ConfigurationError(f"price file {source}: {problems}") from None


def _place(text: str, at: int) -> str:
    """``line N, key K``: where ``at`` is, and the key of the value it is in."""
    line = text.count("\n", 0, at) + 1
    keys = _KEY.findall(text, max(0, at - 4096), at)
    return f"line {line}, key {keys[-1].strip(chr(34) + chr(39))}" if keys else f"line {line}"


def _too_deep(text: str) -> int:
    """Where brackets and braces first nest past ``_MAX_NESTING`` (strings not told apart)."""
    depth = 0
    for at, char in enumerate(text):
        if char in "[{":
            depth += 1
            if depth > _MAX_NESTING:
                return at
        elif char in "]}":
            depth = max(0, depth - 1)
    return 0
