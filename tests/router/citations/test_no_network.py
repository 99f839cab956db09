"""The offline parts of the toolkit open no socket, even from a cold start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
URL_TABLE = ROOT / "tests" / "data" / "urls.json"

# A fresh interpreter with an audit hook that fails on any socket activity (creation, connect,
# DNS lookup), so nothing is cached from other tests: tldextract is imported, its extractor
# built and the bundled suffix list read under the hook.
_PROGRAM = """
import json, sys

def refuse_sockets(event, args):
    if event.startswith("socket."):
        raise RuntimeError(f"network access attempted: {event}")

sys.addaudithook(refuse_sockets)

from router.citations import (
    classify_source_type, dedup_key, dedupe_citations, is_redirect_url, looks_like_domain,
    make_citation, normalize_url, public_suffix, registrable_domain, unwrap_redirect,
)

rows = json.loads(open(sys.argv[1], encoding="utf-8").read())["normalize_url"]
citations = []
for row in rows:
    url = row["input"]
    canonical = normalize_url(url)
    if isinstance(url, str):
        registrable_domain(url)
        public_suffix(url)
        dedup_key(url)
        is_redirect_url(url)
        unwrap_redirect(url)
        classify_source_type(url)
        looks_like_domain(url)
    if canonical is not None:
        assert registrable_domain(canonical)
        citation = make_citation(provider="vertex", url=canonical, title="example.org")
        assert citation is not None
        citations.append(citation)
print(len(rows), len(dedupe_citations(citations)))
"""


def test_offline_functions_open_no_socket() -> None:
    """normalize_url, registrable_domain and friends run cold with every socket event refused."""
    result = subprocess.run(
        [sys.executable, "-c", _PROGRAM, str(URL_TABLE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rows, unique = map(int, result.stdout.split())
    assert rows == len(json.loads(URL_TABLE.read_text(encoding="utf-8"))["normalize_url"])
    assert unique > 100


def test_audit_hook_catches_socket_use() -> None:
    """The guard above is real: the same hook stops a plain DNS lookup."""
    program = _PROGRAM.split("from router.citations", maxsplit=1)[0] + (
        "import socket\nsocket.getaddrinfo('localhost', 80)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    assert result.returncode != 0
    assert "network access attempted: socket.getaddrinfo" in result.stderr
