"""The Vertex / Gemini stream reader: ``streamGenerateContent`` chunks to router events.

Each chunk is a ``GenerateContentResponse`` of its own (REST camelCase, or a snake_case SDK
dump): candidates carrying the next parts of their content, and, usually only in the last
chunk, the grounding metadata (every earlier chunk carrying ``groundingMetadata: {}``); the
last chunk of a candidate has its ``finishReason`` and the usage (provider-quirks section 2).

- The first candidate's text parts that are not thoughts (Gemini 3 interleaves thought parts)
  go out as ``TextDelta`` as they arrive: concatenated, they are the answer.
- When the first candidate's grounding metadata first shows a search (queries, chunks, the
  Search Suggestions widget), one ``SearchStarted`` with its queries; a ``toolCall`` part (a
  server-side tool invocation) is one ``SearchStarted`` of its own.
- When grounding metadata arrives before the stream ends, the citations of the body so far
  go out as ``CitationDelta``; support offsets are UTF-8 byte offsets into the whole
  concatenated answer, converted to characters by the same code as for a final body, and a
  span that reaches past the text delivered so far waits until the text is there.
- The stream completes when every candidate has its ``finishReason``; the base class then maps
  the final body and reconciles the events with it. An error chunk (``{"error": {...}}``) ends
  the stream as failed (429 and 5xx codes transient).

The final body merges the chunks: per candidate, consecutive text parts of the same kind
(answer or thought) concatenated, other parts kept in order; grounding metadata accumulated as
the API means it when it is split over several chunks (search queries as a union in order,
``groundingChunks`` and ``groundingSupports`` extended, so a support's chunk indices point into
the chunks accumulated so far; a warning when one points past them; other keys by their latest
non-empty value); ``citationMetadata.citations``
accumulated; every other field, and the top-level ones (``usageMetadata``, ``modelVersion``,
``responseId``), as the latest chunk gave it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.base import ReplyMapper
from adapters.stream_reader import StreamReaderBase
from adapters.vertex.apis import GEMINI, VERTEX, GoogleApi
from adapters.vertex.body import as_rest_body, items, mapping, text
from adapters.vertex.citations import extract_vertex_citations
from adapters.vertex.reply import map_gemini_reply, map_vertex_reply
from router.types import LLMRequest

__all__ = ["GeminiStreamReader", "VertexStreamReader"]

_TRAILER_KEYS = ("usageMetadata", "modelVersion", "responseId")
_UNION_KEYS = frozenset({"webSearchQueries", "retrievalQueries", "imageSearchQueries"})
_EXTENDED_KEYS = frozenset({"groundingChunks", "groundingSupports"})
_SEARCH_SIGNALS = ("webSearchQueries", "groundingChunks", "retrievalQueries", "searchEntryPoint")


class _Candidate:
    """One candidate as its chunks have built it so far."""

    __slots__ = ("fields", "grounding", "parts", "pieces")

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        # A text part's pieces, by part position: joined when a body is made, not at every
        # chunk (a growing string copied per chunk would cost the square of the answer).
        self.pieces: dict[int, list[str]] = {}
        self.grounding: dict[str, Any] | None = None
        self.fields: dict[str, Any] = {}

    def text_of(self, position: int) -> str:
        """The text of the part at ``position``, its pieces joined (and kept joined)."""
        pieces = self.pieces[position]
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0]

    def body(self) -> dict[str, Any]:
        candidate: dict[str, Any] = {**self.fields}
        content = mapping(candidate.get("content"))
        parts = [dict(part) for part in self.parts]
        for position in self.pieces:
            parts[position]["text"] = self.text_of(position)
        candidate["content"] = {**content, "parts": parts}
        if self.grounding is not None:
            candidate["groundingMetadata"] = dict(self.grounding)
        return candidate


class VertexStreamReader(StreamReaderBase):
    """Reads one ``streamGenerateContent`` stream (see the module docstring)."""

    label = "Vertex AI"
    vendor = "vertex"
    _api: GoogleApi = VERTEX
    _mapper_of_api: ReplyMapper = staticmethod(map_vertex_reply)

    def __init__(self, request: LLMRequest) -> None:
        super().__init__(request, self._mapper_of_api)
        self._envelope: dict[str, Any] = {}
        self._candidates: dict[int, _Candidate] = {}
        self._finished: set[int] = set()
        self._searched = False

    @staticmethod
    def is_stream_event(value: Mapping[str, Any]) -> bool:
        """A stream chunk has the shape of a final body: a lone dict is read as one."""
        del value
        return False

    def final_body(self) -> dict[str, Any]:
        candidates = [self._candidates[index].body() for index in sorted(self._candidates)]
        return {**self._envelope, "candidates": candidates}

    def _trailer(self, chunk: Mapping[str, Any]) -> bool | None:
        """After every candidate finished only the usage may come; content is ignored."""
        body = as_rest_body(chunk)
        for candidate in items(body.get("candidates")):
            if items(mapping(mapping(candidate).get("content")).get("parts")):
                return False
            if mapping(mapping(candidate).get("groundingMetadata")):
                return False
        kept = {key: body[key] for key in _TRAILER_KEYS if body.get(key) is not None}
        if not kept:
            return None
        self._envelope.update(kept)
        return True

    def _read(self, chunk: Mapping[str, Any]) -> None:
        body = as_rest_body(chunk)
        if not body:
            self.skipped += 1
            return
        if "error" in body:
            error = mapping(body.get("error"))
            code = error.get("code")
            said = text(error.get("message")) or str(body["error"])[:200]
            transient = isinstance(code, int) and (code == 429 or code >= 500)
            self._failed(f"{said} (code {code})", transient=transient)
            return
        for key, value in body.items():
            if key != "candidates":
                self._envelope[key] = value
        grounding_changed = False
        for position, candidate in enumerate(items(body.get("candidates"))):
            if not isinstance(candidate, dict):
                self.skipped += 1
                continue
            raw_index = candidate.get("index", position)
            index = raw_index if type(raw_index) is int and raw_index >= 0 else position
            grounding_changed |= self._candidate(index, candidate)
        if self._candidates and len(self._finished) == len(self._candidates):
            if not self._complete:
                self._warn_unfit_supports()
            self._completed()
        elif grounding_changed:
            for citation in extract_vertex_citations(self.final_body(), api=self._api):
                self.events.citation(citation)

    def _warn_unfit_supports(self) -> None:
        """Say so when a support points at a grounding chunk the stream never sent."""
        for index in sorted(self._candidates):
            grounding = self._candidates[index].grounding
            unfit = _unfit_support_indices(grounding) if grounding else []
            if unfit:
                count = len(items(grounding.get("groundingChunks"))) if grounding else 0
                self._warnings.append(
                    f"{self.label} stream: candidate {index}: grounding supports point at chunk "
                    f"indices {sorted(set(unfit))[:10]} but the stream sent {count} grounding "
                    "chunks; those supports cite nothing"
                )

    def _candidate(self, index: int, candidate: dict[str, Any]) -> bool:
        """Merge one candidate's chunk; True when its grounding metadata changed."""
        state = self._candidates.get(index)
        if state is None:
            state = self._candidates[index] = _Candidate()
        answer = index == 0
        content = mapping(candidate.get("content"))
        for part in items(content.get("parts")):
            if isinstance(part, dict):
                self._part(state, part, answer)
        changed = False
        for key, value in candidate.items():
            if key == "content":
                state.fields["content"] = {k: v for k, v in content.items() if k != "parts"}
            elif key == "groundingMetadata":
                changed = _merge_grounding(state, value)
            elif key == "citationMetadata":
                _merge_citations(state, value)
            else:
                state.fields[key] = value
        if candidate.get("finishReason") is not None:
            self._finished.add(index)
        if answer and changed and not self._searched:
            grounding = state.grounding or {}
            if any(grounding.get(signal) for signal in _SEARCH_SIGNALS):
                self._searched = True
                queries = [q.strip() for q in items(grounding.get("webSearchQueries")) if text(q)]
                self._announce(list(dict.fromkeys(queries)))
        return changed

    def _part(self, state: _Candidate, part: dict[str, Any], answer: bool) -> None:
        thought = part.get("thought") is True
        piece = part.get("text")
        if isinstance(piece, str):
            last = state.parts[-1] if state.parts else None
            if (
                last is not None
                and isinstance(last.get("text"), str)
                and ((last.get("thought") is True) == thought)
            ):
                last.update({k: v for k, v in part.items() if k != "text"})
                state.pieces[len(state.parts) - 1].append(piece)
            else:
                state.parts.append(dict(part))
                state.pieces[len(state.parts) - 1] = [piece]
            if answer and not thought:
                self.events.text(piece)
            return
        state.parts.append(dict(part))
        tool_call = part.get("toolCall")
        if answer and isinstance(tool_call, dict):
            queries = items(mapping(tool_call.get("args")).get("queries"))
            self._announce([q for q in queries if text(q)])


class GeminiStreamReader(VertexStreamReader):
    """Reads one Gemini Developer API stream: the same chunks, citations named "gemini"."""

    label = "Gemini API"
    vendor = "gemini"
    _api = GEMINI
    _mapper_of_api = staticmethod(map_gemini_reply)


def _merge_grounding(state: _Candidate, value: object) -> bool:
    """Fold one chunk's grounding metadata into the candidate's; True when it changed.

    The API may split one answer's metadata over several chunks, so each key is accumulated as
    it means: ``webSearchQueries`` (and ``retrievalQueries``) as a union in order,
    ``groundingChunks`` and ``groundingSupports`` extended (a support's chunk indices point into
    the chunk list accumulated so far; a list that repeats the one so far and adds to it
    replaces it), any other key replaced by its latest non-empty value.
    """
    grounding = mapping(value)
    if state.grounding is None:
        state.grounding = {}
    kept = state.grounding
    changed = False
    for key, item in grounding.items():
        if key in _UNION_KEYS and isinstance(item, list):
            known = list(items(kept.get(key)))
            added = [query for query in item if query not in known]
            if added or key not in kept:
                kept[key] = [*known, *added]
                changed = changed or bool(added)
        elif key in _EXTENDED_KEYS and isinstance(item, list):
            known = list(items(kept.get(key)))
            # A list that starts with the one so far repeats it (and perhaps adds to it).
            grown = list(item) if item[: len(known)] == known else [*known, *item]
            if grown != known or key not in kept:
                kept[key] = grown
                changed = changed or grown != known
        elif item or key not in kept:
            changed = changed or kept.get(key) != item
            kept[key] = item
    return changed and any(kept.values())


def _unfit_support_indices(grounding: Mapping[str, Any]) -> list[int]:
    """The chunk indices of supports that point past the accumulated chunk list."""
    count = len(items(grounding.get("groundingChunks")))
    unfit: list[int] = []
    for support in items(grounding.get("groundingSupports")):
        for index in items(mapping(support).get("groundingChunkIndices")):
            if type(index) is int and not 0 <= index < count:
                unfit.append(index)
    return unfit


def _merge_citations(state: _Candidate, value: object) -> None:
    metadata = mapping(value)
    kept = mapping(state.fields.get("citationMetadata"))
    citations = list(items(kept.get("citations")))
    for citation in items(metadata.get("citations")):
        if citation not in citations:
            citations.append(citation)
    state.fields["citationMetadata"] = {**kept, **metadata, "citations": citations}
