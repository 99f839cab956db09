"""For the chart tests: what a drawn PNG holds, and a Python without matplotlib."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

__all__ = ["colour_counts", "hide_matplotlib"]


def colour_counts(path: Path) -> dict[tuple[int, int, int], int]:
    """Pixels per RGB colour of the image at ``path``."""
    with Image.open(path) as image:
        counts = image.convert("RGB").getcolors(maxcolors=1 << 24)
    assert counts is not None
    return {colour: count for count, colour in counts}


def hide_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every matplotlib import fail for the rest of the test, as if it were not installed."""
    for name in [name for name in sys.modules if name.split(".")[0] == "matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
