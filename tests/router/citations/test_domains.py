"""Registrable domains, public suffixes and domain-like text, from tests/data/domains.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from router.citations import domains as domains_module
from router.citations import looks_like_domain, public_suffix, registrable_domain

TABLE = json.loads(
    (Path(__file__).parents[2] / "data" / "domains.json").read_text(encoding="utf-8")
)
ROOT = Path(__file__).resolve().parents[3]


def _rows(name: str) -> Any:
    rows = TABLE[name]
    return pytest.mark.parametrize("row", rows, ids=[row["id"] for row in rows])


@_rows("registrable_domain")
def test_registrable_domain(row: dict[str, Any]) -> None:
    """registrable_domain gives the domain each row expects."""
    assert registrable_domain(row["input"]) == row["expected"]


@_rows("public_suffix")
def test_public_suffix(row: dict[str, Any]) -> None:
    """public_suffix gives the ICANN suffix each row expects (None where there is none)."""
    assert public_suffix(row["input"]) == row["expected"]


@_rows("looks_like_domain")
def test_looks_like_domain(row: dict[str, Any]) -> None:
    """looks_like_domain accepts bare domains and refuses titles, dates, IPs and URLs."""
    assert looks_like_domain(row["input"]) is row["expected"]


def test_domain_table_is_large_enough() -> None:
    """The domain tables hold at least 60 rows together."""
    assert sum(len(rows) for rows in TABLE.values() if isinstance(rows, list)) >= 60


def test_non_string_input_gives_empty_results() -> None:
    """Values that are not strings give "" and None rather than raising."""
    assert registrable_domain(None) == ""  # type: ignore[arg-type]
    assert public_suffix(42) is None  # type: ignore[arg-type]


def test_extractor_is_built_once_without_download() -> None:
    """One TLDExtract instance serves every lookup: no list download, no private suffixes."""
    first = domains_module._extractor()
    registrable_domain("https://www.bbc.co.uk/")
    assert domains_module._extractor() is first
    assert tuple(first.suffix_list_urls) == ()
    assert first.include_psl_private_domains is False


def test_import_loads_neither_tldextract_nor_aiohttp() -> None:
    """`import router.citations` defers tldextract (and requests) and aiohttp to first use."""
    code = (
        "import sys, router.citations; "
        "print(sorted(m for m in ('tldextract', 'requests', 'aiohttp') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"
