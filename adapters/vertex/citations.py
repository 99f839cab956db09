"""Citations and grounding of Vertex / Gemini ``generateContent`` replies, read purely.

Everything here takes an SDK ``GenerateContentResponse`` or a plain dict (camelCase or
snake_case; see ``body``), reads every candidate, and never raises on malformed input:
a bad item is skipped (with a debug event when ``DEBUG_GROUNDING`` is on).

Citations come from these places, checked in this order for each candidate (the names are the
REST spelling; the snake_case ones are read the same way):

1. ``groundingMetadata.citations``
2. ``groundingMetadata.citedSources``
3. ``groundingMetadata.groundingAttributions``
4. ``groundingMetadata.supportingContent``
5. ``groundingMetadata.sources``
6. ``groundingMetadata.groundingChunks``
7. ``groundingMetadata.groundingSupports``
8. ``groundingMetadata.webSearchSources``
9. ``groundingMetadata.retrievalMetadata``
10. the candidate's ``citationMetadata.citations``

Grounding chunks (``web``, ``retrievedContext``, ``maps``, ``image``) have rank = chunk index +
1; supports (7) add spans to the chunks they name and mark them cited (indices out of range are
skipped). The other sources are read as generic source items (a URL, a title, a domain, a text,
a segment) without a rank; the citation kinds (1, 2, 3, 10) are cited. ``retrievedContext``
chunks (RAG, file search) are ``doc`` citations; one with no URL and no domain is counted
(``retrieval_chunks_dropped``), not emitted. Spans are character offsets into the first
candidate's answer text, the ``content`` the adapter returns (``spans``); later
candidates contribute their citations, cited or not, without spans. ``raw`` is the provider
item in the REST (camelCase) spelling.

Vertex AI and the Gemini Developer API send the same reply; ``api`` (:mod:`apis`) says which
one it came from, and so which vendor its citations and warning name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.vertex.apis import VERTEX, GoogleApi
from adapters.vertex.body import as_rest_body, index, items, mapping, text
from adapters.vertex.grounding import SourceCounts, VertexGrounding, grounding_evidence
from adapters.vertex.spans import TextLayout, candidate_layout, segment_span
from router.citations.attributions import Mark
from router.citations.build import CitationCollector
from router.logging import get_logger, grounding_debug_enabled
from router.types import Attribution, Citation, SourceType, Span, Usage

__all__ = [
    "VertexReply",
    "extract_vertex_citations",
    "extract_vertex_grounding",
    "read_vertex_reply",
]

_log = get_logger(__name__)

# Generic sources, in the order they are checked before and after the chunks; True marks
# the kinds whose items the answer cites.
_SOURCES_BEFORE_CHUNKS: tuple[tuple[str, bool], ...] = (
    ("citations", True),
    ("citedSources", True),
    ("groundingAttributions", True),
    ("supportingContent", False),
    ("sources", False),
)
_CHUNK_KINDS: tuple[tuple[str, SourceType | None], ...] = (
    ("web", None),
    ("retrievedContext", "doc"),
    ("maps", None),
    ("image", None),
)
# Where a chunk's citation came from, for the debug events: built once, not per chunk.
_CHUNK_ORIGINS = {name: f"groundingChunks.{name}" for name, _ in _CHUNK_KINDS}
_URL_KEYS = ("uri", "url", "link", "sourceUri")
_NESTED_URL_OWNERS = ("web", "source", "reference", "retrievedContext", "maps")
_DOMAIN_KEYS = ("domain", "host")
_SNIPPET_KEYS = ("snippet", "text", "content")


@dataclass(frozen=True, slots=True)
class VertexReply:
    """One reply mapped: the answer text, citations, grounding evidence, usage."""

    content: str
    citations: list[Citation]
    grounding: VertexGrounding
    usage: Usage
    model_version: str | None
    finish_reason: str | None
    block_reason: str | None
    response_id: str | None = None
    api: GoogleApi = VERTEX
    attributions: list[Attribution] = field(default_factory=list)
    """One per grounding support x chunk index it names, in answer order."""


@dataclass(slots=True)
class _Tally:
    """The citations built so far from one reply, and counts of what was seen and dropped."""

    resolved: Mapping[str, str] | None = None
    api: GoogleApi = VERTEX
    seen: int = 0
    dropped: int = 0
    retrieval: int = 0
    retrieval_dropped: int = 0
    supports_skipped: int = 0
    attributions: list[Attribution] = field(default_factory=list)
    collector: CitationCollector = field(init=False)

    def __post_init__(self) -> None:
        self.collector = CitationCollector(self.api.vendor)

    def counts(self) -> SourceCounts:
        return SourceCounts(
            sources_seen=self.seen,
            sources_dropped=self.dropped,
            retrieval_chunks=self.retrieval,
            retrieval_chunks_dropped=self.retrieval_dropped,
            supports_skipped=self.supports_skipped,
        )

    def count(self, kept: bool, source: str, kind: str = "") -> None:
        """Count one source item given to the collector (not kept: it named no domain)."""
        self.seen += 1
        retrieval = kind == "retrievedContext"
        self.retrieval += retrieval
        if kept:
            return
        self.dropped += 1
        self.retrieval_dropped += retrieval
        if grounding_debug_enabled():
            where = f"{source}.{kind}" if kind else source
            _log.debug("vertex_source_dropped", source=where, reason="no_source_domain")


def _first_url(owner: dict[str, Any]) -> str | None:
    for key in _URL_KEYS:
        found = text(owner.get(key))
        if found is not None:
            return found
    return None


def _resolved(tally: _Tally, url: str | None) -> str | None:
    return tally.resolved.get(url) if tally.resolved and url else None


def _chunk_citation(
    tally: _Tally,
    chunk: object,
    rank: int,
    spans: list[Span],
    cited: bool,
    *,
    marks: list[Mark],
) -> None:
    chunk_dict = mapping(chunk)
    kind: str = "unknown"
    source_type: SourceType | None = None
    source = chunk_dict.get("web")  # nearly every chunk: checked first, on its own
    if isinstance(source, dict):
        kind = "web"
    else:
        source = {}
        for name, name_type in _CHUNK_KINDS:
            if isinstance(chunk_dict.get(name), dict):
                kind, source_type, source = name, name_type, chunk_dict[name]
                break
    url = _first_url(source)
    nested = [text(source.get("imageUri"))] if kind == "image" else []
    snippet = text(source.get("text"))
    if snippet is None and "ragChunk" in source:
        snippet = text(mapping(source["ragChunk"]).get("text"))
    domain = source.get("domain")
    kept = tally.collector.add(
        url,
        title=text(source.get("title")),
        snippet=snippet,
        rank=rank,
        raw=chunk_dict,
        spans=spans,
        cited=cited,
        location={"type": "grounding_chunk", "chunk_index": rank - 1},
        nested_urls=nested,
        resolved_url=_resolved(tally, url),
        domain_hint=None if domain is None else text(domain),
        source_type=source_type,
        origin=_CHUNK_ORIGINS.get(kind, "groundingChunks.unknown"),
        marks=marks,
    )
    tally.count(kept, "groundingChunks", kind)


def _source_citation(
    tally: _Tally, item: object, source: str, cited: bool, layout: TextLayout | None
) -> None:
    """A generic source item: a URL string, or a dict with a URL, title, domain, text, segment."""
    if isinstance(item, str):
        item = {"uri": item}
    entry = mapping(item)
    owners = [entry, *(mapping(entry.get(name)) for name in _NESTED_URL_OWNERS)]
    urls = [found for owner in owners if (found := _first_url(owner)) is not None]
    url = urls[0] if urls else None
    title = next((t for owner in owners if (t := text(owner.get("title"))) is not None), None)
    domain = next(
        (d for owner in owners for key in _DOMAIN_KEYS if (d := text(owner.get(key))) is not None),
        None,
    )
    snippet = next((s for key in _SNIPPET_KEYS if (s := text(entry.get(key))) is not None), None)
    # Citation-metadata items carry their offsets themselves; attributions carry a segment.
    segment = entry.get("segment") if "segment" in entry else entry if "endIndex" in entry else None
    span = segment_span(layout, segment) if layout is not None and segment else None
    kept = tally.collector.add(
        url,
        title=title,
        snippet=snippet,
        raw=entry,
        spans=[span] if span is not None else [],
        cited=cited or span is not None,
        nested_urls=urls[1:],
        resolved_url=_resolved(tally, url),
        domain_hint=domain,
        origin=source,
        marks=() if span is None else (Mark(span["start"], span["end"], span["text"]),),
    )
    tally.count(kept, source)


def _chunk_supports(
    grounding: dict[str, Any], chunk_count: int, layout: TextLayout | None, tally: _Tally
) -> tuple[dict[int, list[Span]], set[int], dict[int, list[Mark]]]:
    """Spans per chunk index, the chunk indices some support cites, and the marks per chunk.

    A mark is one support x one chunk index it names, with the score ``confidenceScores``
    gives at the same position (None when the list is missing, short, or not a number).
    """
    spans: dict[int, list[Span]] = {}
    cited: set[int] = set()
    marks: dict[int, list[Mark]] = {}
    for support in items(grounding.get("groundingSupports")):
        support_dict = support if isinstance(support, dict) else {}
        span = segment_span(layout, support_dict.get("segment")) if layout is not None else None
        span_used = False
        raw_indices = support_dict.get("groundingChunkIndices")
        scores = support_dict.get("confidenceScores")
        scores = scores if isinstance(scores, list) else []
        for position, raw_index in enumerate(raw_indices if isinstance(raw_indices, list) else ()):
            ok = type(raw_index) is int and raw_index >= 0  # the common case, without a call
            chunk_index = raw_index if ok else index(raw_index)
            if chunk_index is None or chunk_index >= chunk_count:
                tally.supports_skipped += 1
                if grounding_debug_enabled():
                    _log.debug("vertex_support_skipped", reason="chunk_index_out_of_range")
                continue
            cited.add(chunk_index)
            if span is not None:
                # Each chunk's citation owns its span dicts: a support citing several chunks
                # gives the second and later ones copies.
                chunk_spans = spans.get(chunk_index)
                if chunk_spans is None:
                    chunk_spans = spans[chunk_index] = []
                    marks[chunk_index] = []
                chunk_spans.append(span if not span_used else span.copy())
                span_used = True
                score = scores[position] if position < len(scores) else None
                # tuple.__new__ skips the NamedTuple's Python-level __new__ (once per mark).
                marks[chunk_index].append(
                    tuple.__new__(
                        Mark,
                        (
                            span["start"],
                            span["end"],
                            span["text"],
                            None,
                            {"type": "grounding_chunk", "chunk_index": chunk_index},
                            score if isinstance(score, int | float) else None,
                        ),
                    )
                )
    return spans, cited, marks


def _candidate_citations(
    tally: _Tally, candidate: dict[str, Any], layout: TextLayout | None
) -> None:
    grounding = mapping(candidate.get("groundingMetadata"))
    for name, cited in _SOURCES_BEFORE_CHUNKS:
        if name in grounding:  # rare kinds: most replies have none of them
            for item in items(grounding[name]):
                _source_citation(tally, item, name, cited, layout)
    chunks = items(grounding.get("groundingChunks"))
    spans, cited_chunks, marks = _chunk_supports(grounding, len(chunks), layout, tally)
    for position, chunk in enumerate(chunks):
        _chunk_citation(
            tally,
            chunk,
            position + 1,
            spans.get(position, []),
            position in cited_chunks,
            marks=marks.get(position, []),
        )
    for item in items(grounding.get("webSearchSources")):
        _source_citation(tally, item, "webSearchSources", False, layout)
    for value in mapping(grounding.get("retrievalMetadata")).values():
        if isinstance(value, list):
            for item in value:
                _source_citation(tally, item, "retrievalMetadata", False, layout)
    for item in items(mapping(candidate.get("citationMetadata")).get("citations")):
        _source_citation(tally, item, "citationMetadata", True, layout)


def _candidates(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [candidate for candidate in items(body.get("candidates")) if isinstance(candidate, dict)]


def _token_count(usage: dict[str, Any], *keys: str) -> int | None:
    """The sum of the counts under ``keys`` the reply reports; None if it reports none."""
    counts = [count for key in keys if (count := index(usage.get(key))) is not None]
    return sum(counts) if counts else None


def _usage(body: dict[str, Any]) -> Usage:
    """Gemini's usage in the router's terms (``totalTokenCount`` is the sum of the four parts).

    The search results fed to the model (``toolUsePromptTokenCount``) are input and are billed
    as input; thinking (``thoughtsTokenCount``) is output and is billed as output.
    """
    usage = mapping(body.get("usageMetadata"))
    return Usage(
        input_tokens=_token_count(usage, "promptTokenCount", "toolUsePromptTokenCount"),
        output_tokens=_token_count(usage, "candidatesTokenCount", "thoughtsTokenCount"),
        total_tokens=_token_count(usage, "totalTokenCount"),
        cached_input_tokens=_token_count(usage, "cachedContentTokenCount"),
        reasoning_tokens=_token_count(usage, "thoughtsTokenCount"),
    )


def _mapped_citations(
    candidates: list[dict[str, Any]], resolved: Mapping[str, str] | None, api: GoogleApi
) -> tuple[str, list[Citation], _Tally]:
    """(the first candidate's answer text, the citations of all candidates, the counts)."""
    tally = _Tally(resolved=resolved, api=api)
    content = ""
    for position, candidate in enumerate(candidates):
        layout = candidate_layout(candidate) if position == 0 else None
        if layout is not None:
            content = layout.content
        _candidate_citations(tally, candidate, layout)
    citations = tally.collector.citations()
    tally.attributions = tally.collector.attributions()
    if grounding_debug_enabled():
        _log.debug(
            "vertex_citations_extracted",
            candidates=len(candidates),
            sources_seen=tally.seen,
            sources_dropped=tally.dropped,
            citations=len(citations),
            supports_skipped=tally.supports_skipped,
        )
    return content, citations, tally


def _map_body(
    body: dict[str, Any], resolved: Mapping[str, str] | None, api: GoogleApi
) -> tuple[str, list[Citation], VertexGrounding, list[Attribution]]:
    candidates = _candidates(body)
    content, citations, tally = _mapped_citations(candidates, resolved, api)
    grounding = grounding_evidence(candidates, len(citations), tally.counts(), api.short_label)
    return content, citations, grounding, tally.attributions


def read_vertex_reply(
    response: object, resolved: Mapping[str, str] | None = None, *, api: GoogleApi = VERTEX
) -> VertexReply:
    """The whole reply mapped once: what the adapter needs to build its result."""
    body = as_rest_body(response)
    content, citations, grounding, attributions = _map_body(body, resolved, api)
    first = next(iter(_candidates(body)), {})
    return VertexReply(
        content=content,
        citations=citations,
        grounding=grounding,
        usage=_usage(body),
        model_version=text(body.get("modelVersion")),
        finish_reason=text(first.get("finishReason")),
        block_reason=text(mapping(body.get("promptFeedback")).get("blockReason")),
        response_id=text(body.get("responseId")),
        api=api,
        attributions=attributions,
    )


def extract_vertex_citations(
    response: object, resolved: Mapping[str, str] | None = None, *, api: GoogleApi = VERTEX
) -> list[Citation]:
    """The uniform citations of a reply, deduplicated, in rank order.

    ``resolved`` maps redirect URIs (``vertexaisearch.cloud.google.com/grounding-api-redirect``)
    to the end-site URLs a ``RedirectResolver`` found for them.
    """
    return _mapped_citations(_candidates(as_rest_body(response)), resolved, api)[1]


def extract_vertex_grounding(response: object, *, api: GoogleApi = VERTEX) -> VertexGrounding:
    """Grounding evidence of a reply: queries, tool calls, Search Suggestions, counts, warning."""
    return _map_body(as_rest_body(response), None, api)[2]
