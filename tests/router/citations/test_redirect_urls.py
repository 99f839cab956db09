"""Offline redirect awareness: which URLs are redirects and what wrappers carry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.citations import REDIRECTORS, is_redirect_url, unwrap_redirect

TABLE = json.loads(
    (Path(__file__).parents[2] / "data" / "redirects.json").read_text(encoding="utf-8")
)


def _rows(name: str) -> Any:
    rows = TABLE[name]
    return pytest.mark.parametrize("row", rows, ids=[row["id"] for row in rows])


@_rows("is_redirect_url")
def test_is_redirect_url(row: dict[str, Any]) -> None:
    """is_redirect_url recognises each redirector of the table and nothing else."""
    assert is_redirect_url(row["input"]) is row["expected"]


@_rows("unwrap_redirect")
def test_unwrap_redirect(row: dict[str, Any]) -> None:
    """unwrap_redirect gives the canonical target carried in a parameter, else None."""
    assert unwrap_redirect(row["input"]) == row["expected"]


def test_redirect_tables_hold_twenty_rows() -> None:
    """The redirect tables hold at least 20 rows."""
    assert len(TABLE["is_redirect_url"]) + len(TABLE["unwrap_redirect"]) >= 20


def test_redirector_data_is_consistent() -> None:
    """Every redirector has a unique name, lowercase hosts and a path starting with '/'."""
    names = [redirector.name for redirector in REDIRECTORS]
    assert len(names) == len(set(names))
    for redirector in REDIRECTORS:
        assert redirector.hosts
        assert all(host == host.lower() for host in redirector.hosts)
        assert redirector.path.startswith("/")


def test_both_vertex_redirect_hosts_are_known() -> None:
    """Vertex grounding redirects are recognised on the production and the sandbox host."""
    vertex = next(r for r in REDIRECTORS if r.name == "vertex_grounding")
    assert vertex.opaque
    assert vertex.hosts == {
        "vertexaisearch.cloud.google.com",
        "vertexaisearch.cloud.sandbox.google.com",
    }
