"""Batch input files for the CLI tests: grounded requests, one JSONL line each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["request_line", "write_lines"]


def request_line(request_id: str, question: str = "What is new?", **extra: Any) -> str:
    """A JSONL line asking OpenAI's default model a grounded question."""
    return json.dumps(
        {
            "request_id": request_id,
            "vendor": "openai",
            "model": "gpt-5",
            "messages": [{"role": "user", "content": question}],
            "grounded": True,
            **extra,
        }
    )


def write_lines(path: Path, lines: list[str]) -> Path:
    """Write ``lines`` as a JSONL file at ``path``; return it."""
    path.write_text("".join(line + "\n" for line in lines))
    return path
