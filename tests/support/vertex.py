"""Shared pieces of the Vertex adapter tests: the recorded generateContent bodies and the
Citation schema check every extracted citation must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.citations import citation_problems as check_citation
from support.recorded import RECORDED_DIR, load_final_body, recorded_files

__all__ = [
    "EXPECTED_DIR",
    "GENERATE_CONTENT_FILES",
    "INTERACTIONS_FILES",
    "citation_problems",
]

EXPECTED_DIR = RECORDED_DIR.parent / "expected" / "vertex"

# Every Gemini/Vertex generateContent body (a stream counts as its merged final state). The
# Gemini Interactions bodies are another API: they have no candidates.
GENERATE_CONTENT_FILES: list[Path] = [
    path for path in recorded_files() if load_final_body(path).get("candidates")
]
INTERACTIONS_FILES: list[Path] = recorded_files("**/gemini_interactions_*")


def citation_problems(citation: Any, content: str) -> list[str]:
    """What is wrong with a citation under the schema of DESIGN.md section 3 (empty if all)."""
    return check_citation(citation, content, provider="vertex")
