"""A citation's raw: the provider object as a bounded, JSON-able copy, cuts marked."""

from __future__ import annotations

import json
import math

from pydantic import BaseModel

from router.citations import make_citation
from router.citations.raw import RAW_ITEMS_LIMIT, RAW_TEXT_LIMIT, jsonable_raw


def test_small_provider_object_is_copied_unchanged() -> None:
    """An ordinary object comes back equal, as a copy the caller may change."""
    source = {"type": "url_citation", "url": "https://example.com", "title": "Café", "n": [1, 2]}
    copied = jsonable_raw(source)
    assert copied == source
    assert copied is not source
    assert copied["n"] is not source["n"]


def test_long_string_is_cut_with_a_marker() -> None:
    """A 1 MB title keeps its first RAW_TEXT_LIMIT characters and says how much was cut."""
    title = "t" * 1_000_000
    copied = jsonable_raw({"title": title})["title"]
    assert copied.startswith("t" * RAW_TEXT_LIMIT)
    assert copied.endswith(f"… [{1_000_000 - RAW_TEXT_LIMIT} characters cut]")


def test_long_list_keeps_its_head_and_a_marker() -> None:
    """A list of 10,000 keeps RAW_ITEMS_LIMIT items and a last one saying how many were cut."""
    copied = jsonable_raw({"indices": list(range(10_000))})["indices"]
    assert copied[:RAW_ITEMS_LIMIT] == list(range(RAW_ITEMS_LIMIT))
    assert copied[RAW_ITEMS_LIMIT:] == [f"… [{10_000 - RAW_ITEMS_LIMIT} items cut]"]


def test_object_with_many_keys_keeps_its_first_ones() -> None:
    """An object with 10,000 keys keeps RAW_ITEMS_LIMIT of them and a "…" entry."""
    copied = jsonable_raw({f"k{i}": i for i in range(10_000)})
    assert len(copied) == RAW_ITEMS_LIMIT + 1
    assert copied["…"] == f"[{10_000 - RAW_ITEMS_LIMIT} items cut]"


def test_values_json_cannot_hold_are_made_writable() -> None:
    """Lone surrogates, NaN, bytes and SDK models become JSON that UTF-8 can encode."""

    class Source(BaseModel):
        url: str

    copied = jsonable_raw(
        {"title": "a\ud800b", "score": math.nan, "blob": b"\x00\x01", "source": Source(url="u")}
    )
    assert copied == {"title": "a\ufffdb", "score": None, "blob": "AAE=", "source": {"url": "u"}}
    json.dumps(copied, ensure_ascii=False, allow_nan=False).encode("utf-8")


def test_make_citation_bounds_raw() -> None:
    """make_citation's raw is bounded however large the provider object was."""
    citation = make_citation(
        provider="openai",
        url="https://example.com/a",
        title="x" * 1_000_000,
        raw={"title": "x" * 1_000_000, "spans": list(range(50_000))},
    )
    assert citation is not None
    assert len(json.dumps(citation["raw"])) < 2 * RAW_TEXT_LIMIT
    assert citation["title"] is not None
    assert len(citation["title"]) <= 500
