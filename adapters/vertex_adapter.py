"""The Vertex extractor under the name DESIGN.md gives it (``_extract_vertex_citations``).

The provider lives in the :mod:`adapters.vertex` package; this module only re-exports it.
"""

from adapters.vertex.adapter import (
    VertexAdapter,
    VertexGrounding,
    _extract_vertex_citations,
    extract_vertex_grounding,
)

__all__ = [
    "VertexAdapter",
    "VertexGrounding",
    "_extract_vertex_citations",
    "extract_vertex_grounding",
]
