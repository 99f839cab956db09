"""What a Vertex reply shows about grounding, beside its citations.

Search queries, whether a search or retrieval ran (and what showed it), the Search Suggestions
HTML Google requires apps to display with grounded answers, counts of the sources seen and
dropped, and the ``[CITATIONS]`` warning of DESIGN.md section 4 when tools ran but no citation
came out. Reads candidates in the REST spelling (see ``body``); never raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from adapters.vertex.body import items, mapping, text

__all__ = ["SourceCounts", "VertexGrounding", "grounding_evidence"]


class SourceCounts(NamedTuple):
    """How many source items a reply had, and how many gave no citation."""

    sources_seen: int = 0
    sources_dropped: int = 0
    retrieval_chunks: int = 0
    retrieval_chunks_dropped: int = 0
    supports_skipped: int = 0


@dataclass(frozen=True, slots=True)
class VertexGrounding:
    """What a reply shows about grounding, beside its citations.

    ``tool_call_count``: Gemini does not list its searches one by one; server-side tool
    invocations (``toolCall`` parts) count one each when present, otherwise each candidate
    whose grounding metadata shows a search or retrieval (queries, chunks, the Search
    Suggestions widget) counts one. ``tool_call_evidence`` names what showed it.
    ``grounded_effective``: search queries or grounding chunks are present.
    ``warning``: the ``[CITATIONS]`` warning when tools ran but no citation came out.
    """

    web_search_queries: tuple[str, ...] = ()
    tool_call_count: int = 0
    tool_call_evidence: tuple[str, ...] = ()
    grounded_effective: bool = False
    search_entry_point: str | None = None
    grounding_metadata_keys: tuple[str, ...] = ()
    citation_count: int = 0
    sources_seen: int = 0
    sources_dropped: int = 0
    retrieval_chunks: int = 0
    retrieval_chunks_dropped: int = 0
    supports_skipped: int = 0
    warning: str | None = None

    def counts(self) -> dict[str, int]:
        """The counts worth keeping in ``AdapterResult.metadata`` (small, JSON-able)."""
        return {name: getattr(self, name) for name in SourceCounts._fields}


# A reply decides its own key names: the warning shows a bounded list of bounded names.
_SHOWN_KEYS = 30
_SHOWN_KEY_CHARS = 60


def _shown_keys(keys: dict[str, None]) -> list[str]:
    shown = [
        key if len(key) <= _SHOWN_KEY_CHARS else f"{key[:_SHOWN_KEY_CHARS]}…"
        for key in sorted(keys)[:_SHOWN_KEYS]
    ]
    if len(keys) > _SHOWN_KEYS:
        shown.append(f"… {len(keys) - _SHOWN_KEYS} more")
    return shown


def grounding_evidence(
    candidates: list[dict[str, Any]],
    citation_count: int,
    counts: SourceCounts,
    label: str = "Vertex",
) -> VertexGrounding:
    """The grounding evidence of a reply's candidates (REST spelling), beside its citations.

    ``label`` names the service in the ``[CITATIONS]`` warning ("Vertex", "Gemini").
    """
    queries: dict[str, None] = {}
    keys: dict[str, None] = {}
    evidence: dict[str, None] = {}
    entry_point: str | None = None
    chunks_present = False
    searched_candidates = 0
    tool_call_parts = 0
    for candidate in candidates:
        for part in items(mapping(candidate.get("content")).get("parts")):
            if isinstance(part, dict) and isinstance(part.get("toolCall"), dict):
                tool_call_parts += 1
        grounding = mapping(candidate.get("groundingMetadata"))
        keys.update(dict.fromkeys(key for key in grounding if isinstance(key, str)))
        candidate_queries = [q.strip() for q in items(grounding.get("webSearchQueries")) if text(q)]
        queries.update(dict.fromkeys(candidate_queries))
        rendered = text(mapping(grounding.get("searchEntryPoint")).get("renderedContent"))
        entry_point = entry_point or rendered
        signals = [
            name
            for name, present in (
                ("webSearchQueries", bool(candidate_queries)),
                ("groundingChunks", bool(items(grounding.get("groundingChunks")))),
                ("retrievalQueries", bool(items(grounding.get("retrievalQueries")))),
                ("searchEntryPoint", rendered is not None),
            )
            if present
        ]
        chunks_present = chunks_present or "groundingChunks" in signals
        searched_candidates += bool(signals)
        evidence.update(dict.fromkeys(signals))
    if tool_call_parts:
        evidence = {"toolCall": None, **evidence}
    tool_calls = tool_call_parts or searched_candidates
    warning = None
    if tool_calls and not citation_count:
        warning = (
            f"[CITATIONS] {label}: {tool_calls} tool calls but 0 citations extracted. "
            f"Grounding metadata keys found: {_shown_keys(keys)}"
        )
    return VertexGrounding(
        web_search_queries=tuple(queries),
        tool_call_count=tool_calls,
        tool_call_evidence=tuple(evidence),
        grounded_effective=bool(queries) or chunks_present,
        search_entry_point=entry_point,
        grounding_metadata_keys=tuple(sorted(keys)),
        citation_count=citation_count,
        warning=warning,
        **counts._asdict(),
    )
