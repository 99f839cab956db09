"""URL canonicalisation and dedup keys, from the tables in tests/data/urls.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.citations import (
    TRACKING_PARAMETERS,
    TRACKING_PREFIXES,
    dedup_key,
    make_citation,
    normalize_url,
)

TABLE = json.loads((Path(__file__).parents[2] / "data" / "urls.json").read_text(encoding="utf-8"))
NORMALIZE_ROWS: list[dict[str, Any]] = TABLE["normalize_url"]
DEDUP_ROWS: list[dict[str, Any]] = TABLE["dedup_key"]
CITATION_ROWS: list[dict[str, Any]] = TABLE["citation"]


@pytest.mark.parametrize("row", NORMALIZE_ROWS, ids=[row["id"] for row in NORMALIZE_ROWS])
def test_normalize_url(row: dict[str, Any]) -> None:
    """normalize_url gives the canonical URL each row expects (the row's why says which rule)."""
    assert normalize_url(row["input"]) == row["expected"]


@pytest.mark.parametrize(
    "row",
    [row for row in NORMALIZE_ROWS if row["expected"] is not None],
    ids=[row["id"] for row in NORMALIZE_ROWS if row["expected"] is not None],
)
def test_canonical_url_is_a_fixed_point(row: dict[str, Any]) -> None:
    """Normalising a canonical URL again changes nothing."""
    assert normalize_url(row["expected"]) == row["expected"]


@pytest.mark.parametrize("row", DEDUP_ROWS, ids=[row["id"] for row in DEDUP_ROWS])
def test_dedup_key(row: dict[str, Any]) -> None:
    """dedup_key gives the key each row expects."""
    assert dedup_key(row["input"]) == row["expected"]


@pytest.mark.parametrize("row", CITATION_ROWS, ids=[row["id"] for row in CITATION_ROWS])
def test_citation_of_a_url_that_is_not_http(row: dict[str, Any]) -> None:
    """A non-http(s) URL gives url None and the domain of its host, or no citation at all."""
    citation = make_citation(provider="openai", url=row["input"], title="Some page")
    if row["source_domain"] is None:
        assert citation is None
        return
    assert citation is not None
    assert (citation["url"], citation["source_domain"]) == (row["url"], row["source_domain"])


def test_tables_are_large_enough_and_ids_unique() -> None:
    """The URL table keeps at least 150 rows, with recorded URLs among them, and unique ids."""
    assert len(NORMALIZE_ROWS) >= 150
    assert sum(row["id"].startswith("recorded-") for row in NORMALIZE_ROWS) >= 100
    for rows in (NORMALIZE_ROWS, DEDUP_ROWS, CITATION_ROWS):
        ids = [row["id"] for row in rows]
        assert len(ids) == len(set(ids))


def test_tracking_data_is_lowercase_and_spares_generic_names() -> None:
    """Tracking names are compared lowercased, and generic names are never among them."""
    assert all(name == name.lower() for name in TRACKING_PARAMETERS)
    assert all(prefix == prefix.lower() for prefix in TRACKING_PREFIXES)
    generic = {"ref", "source", "id", "page", "q", "s", "v", "lang", "p", "pk_id"}
    assert not generic & TRACKING_PARAMETERS
    assert not any(name.startswith(TRACKING_PREFIXES) for name in generic)


def test_recorded_openai_markers_are_all_stripped() -> None:
    """No recorded URL keeps OpenAI's utm_source marker after normalisation, wherever it sat."""
    recorded = [row for row in NORMALIZE_ROWS if "utm_source=" in str(row["input"])]
    assert len(recorded) >= 20
    for row in recorded:
        assert "utm_source" not in (normalize_url(row["input"]) or "")
