"""Source types from URL and title, from tests/data/source_types.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.citations import classify_source_type
from router.citations.source_types import (
    DOC_EXTENSIONS,
    DOC_HOSTS,
    NEWS_HOSTS,
    VIDEO_EXTENSIONS,
    VIDEO_HOSTS,
)

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "source_types.json").read_text(encoding="utf-8")
)["classify_source_type"]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_classify_source_type(row: dict[str, Any]) -> None:
    """classify_source_type gives the type each row expects."""
    assert classify_source_type(row["input"]["url"], row["input"]["title"]) == row["expected"]


def test_table_covers_every_type_with_forty_rows() -> None:
    """The table has at least 40 rows and every source type appears in it."""
    assert len(ROWS) >= 40
    assert {row["expected"] for row in ROWS} == {"video", "doc", "news", "web", "unknown"}


def test_host_tables_hold_lowercase_registrable_names() -> None:
    """Host tables are lowercase and never overlap, so the order of checks is the only rule."""
    tables = [VIDEO_HOSTS, DOC_HOSTS, NEWS_HOSTS]
    for table in tables:
        assert all(host == host.lower() and "." in host for host in table)
    assert not VIDEO_HOSTS & DOC_HOSTS
    assert not VIDEO_HOSTS & NEWS_HOSTS
    assert not DOC_HOSTS & NEWS_HOSTS
    assert not VIDEO_EXTENSIONS & DOC_EXTENSIONS
