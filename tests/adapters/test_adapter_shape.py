"""The adapters as the router builds them: no arguments, known by their vendor."""

from __future__ import annotations

import pytest

from adapters.base import Adapter
from adapters.openai_adapter import OpenAIAdapter
from adapters.vertex_adapter import VertexAdapter


@pytest.mark.parametrize(
    ("adapter_class", "vendor"), [(OpenAIAdapter, "openai"), (VertexAdapter, "vertex")]
)
def test_adapter_shape(adapter_class: type[Adapter], vendor: str) -> None:
    """Each adapter is built without arguments, names its vendor and closes cleanly."""
    adapter = adapter_class()
    assert adapter.vendor == vendor
    adapter.close()
