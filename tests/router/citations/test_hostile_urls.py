"""Only http and https URLs survive into a citation, however a hostile one is dressed up.

Rows of ``tests/data/hostile_urls.json``: script, data, file and other schemes, with mixed case,
leading or embedded whitespace and control characters, percent- or entity-encoding. Each gives
``url: None`` (the domain then comes from the title; an ftp URL's from its host), also when a
redirector carries it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from router.citations import make_citation, normalize_url, unwrap_redirect

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "hostile_urls.json").read_text(encoding="utf-8")
)
IDS = [row["id"] for row in ROWS]


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_hostile_url_is_not_a_url(row: dict[str, Any]) -> None:
    """normalize_url refuses it."""
    assert normalize_url(row["url"]) is None


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_citation_keeps_no_hostile_url(row: dict[str, Any]) -> None:
    """The citation has url None and takes its domain from the title."""
    citation = make_citation(provider="openai", url=row["url"], title="example.com")
    assert citation is not None
    assert citation["url"] is None
    assert citation["source_domain"] == "example.com"


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_redirector_carrying_a_hostile_url_is_not_unwrapped(row: dict[str, Any]) -> None:
    """A google.com/url?q= wrapper around it unwraps to nothing; the citation keeps http(s)."""
    wrapped = f"https://www.google.com/url?q={quote(row['url'], safe='')}"
    assert unwrap_redirect(wrapped) is None
    citation = make_citation(provider="vertex", url=wrapped, title="example.com")
    assert citation is not None
    assert citation["url"] is None or citation["url"].startswith("https://www.google.com/url?")
