"""The recorded Anthropic bodies (JSON, and streams folded into their final message)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.recorded import RECORDED_DIR, recorded_files

__all__ = ["ANTHROPIC_FILES", "EXPECTED_DIR", "body_citations", "sdk_message"]

EXPECTED_DIR = RECORDED_DIR.parent / "expected" / "anthropic"

ANTHROPIC_FILES: list[Path] = recorded_files("*/anthropic_*")
"""Every recorded Messages body: six JSON bodies and two SSE streams."""


def body_citations(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(the block's text, the citation) for every citation on the body's text blocks."""
    return [
        (block["text"], citation)
        for block in body["content"]
        if block.get("type") == "text"
        for citation in block.get("citations") or []
    ]


def sdk_message(body: dict[str, Any]) -> Any:
    """The ``Message`` the ``anthropic`` client builds from ``body`` (leniently, as it does)."""
    from anthropic._models import construct_type
    from anthropic.types import Message

    return construct_type(type_=Message, value=body)
