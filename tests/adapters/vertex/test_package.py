"""The Vertex adapter module: its public names, and an import that loads no SDK."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import adapters.vertex_adapter

ROOT = Path(__file__).resolve().parents[3]


def test_public_names() -> None:
    """The adapter, the two extractors and the grounding type are importable from one module."""
    assert set(adapters.vertex_adapter.__all__) == {
        "VertexAdapter",
        "VertexGrounding",
        "_extract_vertex_citations",
        "extract_vertex_grounding",
    }
    assert adapters.vertex_adapter.VertexAdapter.vendor == "vertex"


def test_import_loads_no_sdk() -> None:
    """Importing the adapter loads neither google-genai, google-auth nor an HTTP stack."""
    code = (
        "import sys, adapters.vertex_adapter; "
        "print(sorted(m for m in sys.modules if m.startswith("
        "('google.genai', 'google.auth', 'google.oauth2', 'aiohttp', 'httpx'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"
