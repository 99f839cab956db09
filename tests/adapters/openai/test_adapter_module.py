"""The adapter module: its public names, and no SDK loaded until a call needs one."""

from __future__ import annotations

import subprocess
import sys

import adapters.openai_adapter as module
from adapters.openai_adapter import OpenAIAdapter


def test_public_names() -> None:
    """The module exports the adapter, the grounding record and the two extractors."""
    assert sorted(module.__all__) == [
        "OpenAIAdapter",
        "OpenAIGrounding",
        "_extract_openai_citations",
        "extract_openai_grounding",
    ]
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_adapter_shape() -> None:
    """The router builds it without arguments and knows it by its vendor."""
    adapter = OpenAIAdapter()
    assert adapter.vendor == "openai"
    adapter.close()


def test_importing_the_adapter_loads_no_sdk() -> None:
    """Importing the adapter (and extracting from dicts) never imports openai."""
    code = (
        "import sys\n"
        "from adapters.openai_adapter import _extract_openai_citations\n"
        "_extract_openai_citations({'output': []})\n"
        "print('openai' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "False"
