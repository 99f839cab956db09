"""Which price table entry prices a model name: exact, resource paths, snapshot suffixes only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.pricing import PriceBook, name_forms
from router.respond import load_prices

ROWS = json.loads((Path(__file__).parents[2] / "data" / "price_model_names.json").read_text())


@pytest.fixture(scope="module")
def book() -> PriceBook:
    return load_prices()


@pytest.mark.parametrize("row", ROWS, ids=[f"{row['vendor']}:{row['name']}" for row in ROWS])
def test_model_name_prices_as_the_documented_entry(row: dict[str, Any], book: PriceBook) -> None:
    """Each name prices as the table entry the rules in router.pricing.names give, or none."""
    assert book.priced_as(row["vendor"], [row["name"]]) == row["expected"], row["why"]


def test_the_reply_model_is_tried_before_the_requested_one(book: PriceBook) -> None:
    """The model the reply names prices the call; the requested one is the fallback."""
    assert book.priced_as("openai", ["gpt-4o-2024-08-06", "gpt-5"]) == "gpt-4o"
    assert book.priced_as("openai", [None, "gpt-5"]) == "gpt-5"
    assert book.priced_as("openai", ["unlisted-model", "gpt-5"]) == "gpt-5"


def test_name_forms_fold_at_most_one_suffix() -> None:
    """Only one snapshot suffix is dropped, so a version number inside a name survives."""
    assert list(name_forms("gpt-4o-2024-08-06")) == ["gpt-4o-2024-08-06", "gpt-4o"]
    assert list(name_forms("gemini-2.0-flash-001-002")) == [
        "gemini-2.0-flash-001-002",
        "gemini-2.0-flash-001",
    ]
