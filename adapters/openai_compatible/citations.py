"""Citations and grounding evidence from an OpenAI reply (pure; never raises on bad input).

Accepted replies: a Responses API body (SDK ``Response`` or plain dict, including Azure's and a
stream's final ``response.completed`` response), and a Chat Completions body (search-preview
models, OpenRouter's web plugin). SDK objects are dumped to the dict they were built from
(``exclude_unset``), so both forms take one path and give identical results.

Where citations come from, in rank order (rank = order of first appearance):

1. ``url_citation`` annotations on the answer's ``output_text`` parts, in text order:
   ``cited=True``, with spans mapped into ``content`` (:mod:`adapters.openai_compatible.answer`).
   The Chat Completions shape nests the fields under ``url_citation``; OpenRouter adds the page
   text there as ``content`` (kept as the snippet) and sets both offsets to 0 (no span).
2. Then what the ``web_search_call`` items saw, in output order: ``action.sources`` URL entries,
   ``open_page`` / ``find_in_page`` URLs, and a ``results`` list (on the item or its action)
   when present: ``cited=False``. A source or result entry's ``raw`` is the entry with
   ``"tool_call": {"type", "id"}`` of the search call that found it beside it.

A source without a structured title takes one from its text (a result's text, OpenRouter's page
text): the first line, when it reads as a title (``router.citations.text.title_from_text``).

Sources that are not URLs (``{"type": "api", "name": "oai-weather"}``) are not citations, but
they are evidence that a search ran. Messages in the ``commentary`` phase are not the answer:
their annotations count as sources seen, not as citations of the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from adapters.openai_compatible.annotations import (
    as_mapping,
    compact_json,
    looks_like_url_citation,
    read_url_citation,
)
from adapters.openai_compatible.answer import AnswerText
from adapters.openai_compatible.errors import OPENAI, OpenAIService
from router.citations.attributions import Mark
from router.citations.build import CitationCollector
from router.citations.text import title_from_text
from router.logging import get_logger, grounding_debug_enabled
from router.types import Attribution, Citation, Location, Span

__all__ = [
    "OpenAIExtraction",
    "OpenAIGrounding",
    "read_openai_citations",
    "read_openai_reply",
]

_log = get_logger(__name__)

WARNING_ITEM_CHARS = 300
# Tuples, not sets: provider values may be unhashable (a list where a string belongs).
_TEXT_PART_TYPES = ("output_text", "text")


@dataclass(frozen=True, slots=True)
class OpenAIGrounding:
    """Whether and how the model searched, as the reply shows it."""

    tool_call_count: int
    """``web_search_call`` items in the output (page opens and finds included)."""
    web_search_queries: tuple[str, ...]
    grounded_effective: bool
    """A web search call that did not fail, or a ``url_citation`` in the answer."""
    non_url_sources: tuple[str, ...]
    """Names of sources that are not web pages, such as ``oai-weather``."""
    warning: str | None
    """The ``[CITATIONS]`` warning when the model searched but nothing could be extracted."""


@dataclass(frozen=True, slots=True)
class OpenAIExtraction:
    """Everything read from one reply in one pass."""

    content: str
    citations: list[Citation]
    grounding: OpenAIGrounding
    refusal: str | None = None
    tokens_removed: int = 0
    sources_seen: int = 0
    sources_dropped: int = 0
    attributions: list[Attribution] = field(default_factory=list)
    """One per annotation that places a cited URL in the answer, in answer order."""


class _Source:
    """One distinct cited URL as first met, with the evidence gathered for it."""

    __slots__ = ("location", "marks", "raw", "snippet", "spans", "title", "url")

    def __init__(self, url: str, raw: Mapping[str, Any]) -> None:
        self.url = url
        self.raw = raw
        self.title: str | None = None
        self.snippet: str | None = None
        self.spans: list[Span] = []
        self.location: Location | None = None
        # One per annotation that places it in the answer, duplicates too (attributions).
        self.marks: list[Mark] = []

    def add_span(self, span: Span) -> None:
        for kept in self.spans:
            if kept["start"] == span["start"] and kept["end"] == span["end"]:
                return
        self.spans.append(span)


# (start in content, position in its list, url, the annotation, its fields, its span)
_Annotation = tuple[int, int, str, Mapping[str, Any], Mapping[str, Any], Span | None]
_UNPLACED = 1 << 62
_text_order = itemgetter(0, 1)


def read_openai_citations(response: object, service: OpenAIService = OPENAI) -> list[Citation]:
    """The uniform citations of an OpenAI-shaped reply (SDK object or dict), ordered by rank.

    Only the citations are built (no answer text, no grounding summary): the cheaper half of
    :func:`read_openai_reply`.
    """
    return _read(response, service).citations()


def read_openai_reply(response: object, service: OpenAIService = OPENAI) -> OpenAIExtraction:
    """Answer text, citations and grounding of a Responses or Chat Completions reply.

    ``service`` names the OpenAI-compatible API the reply came from (OpenRouter's chat
    completions are read here too): its citations and warning carry its vendor and label.
    """
    return _read(response, service).finish()


def _read(response: object, service: OpenAIService = OPENAI) -> _Reader:
    if isinstance(response, str | bytes | bytearray):
        _log.warning(
            "reply_is_text",
            provider="openai",
            characters=len(response),
            hint="read stored JSON or SSE replies with router.extract('openai', text)",
        )
    body = as_mapping(response)
    reader = _Reader(service)
    if body is not None:
        output = body.get("output")
        choices = body.get("choices")
        if isinstance(output, list):
            reader.read_responses(output)
        elif isinstance(choices, list):
            reader.read_chat(choices)
        else:
            _debug("openai_reply_unrecognised", keys=len(body))
    return reader


class _Reader:
    """One pass over a reply; items that cannot be read are skipped and counted."""

    def __init__(self, service: OpenAIService = OPENAI) -> None:
        self.service = service
        self.answer = AnswerText()
        self.cited: dict[str, _Source] = {}
        # Sources only seen (not cited): the raw item by URL, and the title and snippet for the
        # few URLs that came with any (most come as a bare {"type": "url", "url": ...}).
        self.seen: dict[str, Mapping[str, Any]] = {}
        self.seen_text: dict[str, list[str | None]] = {}
        self.queries: dict[str, None] = {}
        self.non_url: dict[str, None] = {}
        self.refusals: list[str] = []
        self.tool_calls = 0
        self.effective_calls = 0
        self.annotations = 0
        self.dropped = 0
        self.first_item: object = None
        self.attributions: list[Attribution] = []
        self.first_search_call: object = None  # what the [CITATIONS] warning quotes

    # -- Responses API -------------------------------------------------------------------

    def read_responses(self, output: list[Any]) -> None:
        items = [item if type(item) is dict else as_mapping(item) for item in output]
        if output:
            self.first_item = items[0] if items[0] is not None else output[0]
        messages = [
            item
            for item in items
            if item is not None and item.get("type") == "message" and item.get("role") != "user"
        ]
        answer = [m for m in messages if m.get("phase") != "commentary"] or messages[-1:]
        annotated: list[tuple[int, list[Any]]] = []
        for message in answer:
            content = message.get("content")
            for part in content if isinstance(content, list) else ():
                part_map = part if type(part) is dict else as_mapping(part)
                if part_map is None:
                    self._skip("content_part")
                    continue
                text = part_map.get("text")
                if part_map.get("type") in _TEXT_PART_TYPES and isinstance(text, str):
                    index = self.answer.add(text)
                    annotations = part_map.get("annotations")
                    if isinstance(annotations, list) and annotations:
                        annotated.append((index, annotations))
                elif isinstance(part_map.get("refusal"), str):
                    self.refusals.append(part_map["refusal"])
        for index, annotations in annotated:
            self._read_annotations(index, annotations)
        answer_ids = {id(message) for message in answer}
        for item in items:
            if item is None:
                self._skip("output_item")
            elif item.get("type") == "web_search_call":
                self._read_search_call(item)
            elif item.get("type") == "message" and id(item) not in answer_ids:
                self._read_unanswered_annotations(item)

    def _read_search_call(self, item: Mapping[str, Any]) -> None:
        if self.first_search_call is None:
            self.first_search_call = item
        self.tool_calls += 1
        if item.get("status") != "failed":
            self.effective_calls += 1
        call = _call_ref(item)
        action = as_mapping(item.get("action"))
        if action is not None:
            query = action.get("query")
            if isinstance(query, str) and query.strip():
                self.queries[query.strip()] = None
            queries = action.get("queries")
            for each in queries if isinstance(queries, list) else ():
                if isinstance(each, str) and each.strip():
                    self.queries[each.strip()] = None
            sources = action.get("sources")
            cited, seen = self.cited, self.seen
            for source in sources if isinstance(sources, list) else ():
                url = source.get("url") if type(source) is dict else None
                if type(url) is str:  # the common {"type": "url", "url": ...}, inlined
                    if url not in cited and url not in seen:
                        seen[url] = {**source, "tool_call": call} if call else source
                else:
                    self._read_source(source, call)
            url = action.get("url")
            if isinstance(url, str):
                self._saw(url, item)
            self._read_results(action.get("results"), call)
        self._read_results(item.get("results"), call)

    def _read_source(self, source: object, call: dict[str, str] | None) -> None:
        entry = as_mapping(source)
        if entry is None:
            self._skip("source")
            return
        url = entry.get("url")
        if type(url) is str:
            self._saw(url, {**entry, "tool_call": call} if call else entry)
            return
        kind, name = entry.get("type"), entry.get("name")
        label = next((value for value in (name, kind) if type(value) is str and value), None)
        if label is not None and kind != "url" and "url" not in entry:
            self.non_url[label] = None  # e.g. {"type": "api", "name": "oai-weather"}
        else:
            self._skip("source")

    def _read_results(self, results: object, call: dict[str, str] | None) -> None:
        for result in results if isinstance(results, list) else ():
            entry = as_mapping(result)
            url = entry.get("url") if entry is not None else None
            if entry is None or not isinstance(url, str):
                self._skip("result")
                continue
            snippet = next(
                (entry[k] for k in ("snippet", "text", "content") if isinstance(entry.get(k), str)),
                None,
            )
            raw = {**entry, "tool_call": call} if call else entry
            self._saw(url, raw, title=entry.get("title"), snippet=snippet)

    def _saw(
        self, url: str, raw: Mapping[str, Any], *, title: object = None, snippet: object = None
    ) -> None:
        if url in self.cited:
            return
        if url not in self.seen:
            self.seen[url] = raw
        if type(title) is str or type(snippet) is str:
            text = self.seen_text.setdefault(url, [None, None])
            if not text[0] and type(title) is str:
                text[0] = title
            if not text[1] and type(snippet) is str:
                text[1] = snippet

    # -- annotations (both APIs) ----------------------------------------------------------

    def _read_annotations(self, part: int, annotations: list[Any]) -> None:
        span_of = self.answer.span
        found: list[_Annotation] = []
        for position, annotation in enumerate(annotations):
            read = read_url_citation(annotation)
            if read is None:
                if looks_like_url_citation(annotation):
                    self._skip("annotation")
                continue
            raw, fields, url = read
            span = span_of(part, fields.get("start_index"), fields.get("end_index"))
            # Text order: spanned annotations by where they start, the others after, as listed.
            start = span["start"] if span is not None else _UNPLACED
            found.append((start, position, url, raw, fields, span))
        found.sort(key=_text_order)
        cited = self.cited
        for _, _, url, raw, fields, span in found:
            source = cited.get(url)
            if source is None:
                source = cited[url] = _Source(url, raw)
            if not source.title:
                title = fields.get("title")
                source.title = title if type(title) is str else None
            if not source.snippet:
                page_text = fields.get("content")  # OpenRouter: the page text behind the citation
                source.snippet = page_text if type(page_text) is str else None
            location = _url_citation_location(fields)
            if span is not None:
                source.add_span(span)
                source.marks.append(Mark(span["start"], span["end"], span["text"], None, location))
            if source.location is None:
                source.location = location
        self.annotations += len(found)

    def _read_unanswered_annotations(self, message: Mapping[str, Any]) -> None:
        content = message.get("content")
        for part in content if isinstance(content, list) else ():
            part_map = as_mapping(part)
            annotations = part_map.get("annotations") if part_map is not None else None
            for annotation in annotations if isinstance(annotations, list) else ():
                read = read_url_citation(annotation)
                if read is not None:
                    self._saw(read[2], read[0], title=read[1].get("title"))

    # -- Chat Completions -----------------------------------------------------------------

    def read_chat(self, choices: list[Any]) -> None:
        for choice in choices:
            entry = as_mapping(choice)
            message = as_mapping(entry.get("message")) if entry is not None else None
            if message is None:
                self._skip("choice")
                continue
            self.first_item = message
            text = message.get("content")
            index = self.answer.add(text if isinstance(text, str) else "")
            if isinstance(message.get("refusal"), str):
                self.refusals.append(message["refusal"])
            annotations = message.get("annotations")
            if isinstance(annotations, list):
                self._read_annotations(index, annotations)
            return  # the first choice is the answer; n > 1 is not something the router asks

    # -- result ----------------------------------------------------------------------------

    def _first_call_said(self) -> str:
        """The warning's evidence: the first web search call (the first output item is
        usually the reasoning item, which says nothing about the search), else the first item."""
        if self.first_search_call is not None:
            quoted = compact_json(self.first_search_call, WARNING_ITEM_CHARS)
            return f"First web search call: {quoted}"
        quoted = compact_json(self.first_item, WARNING_ITEM_CHARS)
        return f"No web search call in the output; first output item: {quoted}"

    def finish(self) -> OpenAIExtraction:
        content = self.answer.content
        citations = self.citations()
        queries = tuple(self.queries)
        warning = None
        if self.tool_calls > 0 and not citations:
            warning = (
                f"[CITATIONS] {self.service.label}: {self.tool_calls} tool calls but 0 citations "
                f"extracted. {self._first_call_said()}"
            )
        grounding = OpenAIGrounding(
            tool_call_count=self.tool_calls,
            web_search_queries=queries,
            grounded_effective=self.effective_calls > 0 or self.annotations > 0,
            non_url_sources=tuple(self.non_url),
            warning=warning,
        )
        return OpenAIExtraction(
            content=content,
            citations=citations,
            grounding=grounding,
            refusal="\n".join(self.refusals) or None,
            tokens_removed=self.answer.tokens_removed,
            sources_seen=len(self.cited) + len(self.seen),
            sources_dropped=self.dropped,
            attributions=self.attributions,
        )

    def citations(self) -> list[Citation]:
        """The citations of what was read, ranked in order of first appearance (call once)."""
        collector = CitationCollector(self.service.vendor)
        add = collector.add
        rank = 0
        for url, source in self.cited.items():
            rank += 1
            if not add(
                url,
                title=source.title or title_from_text(source.snippet),
                snippet=source.snippet,
                rank=rank,
                raw=source.raw,
                spans=source.spans,
                cited=True,
                location=source.location,
                origin="annotation",
                marks=source.marks,
            ):
                self.dropped += 1
        no_text = (None, None)
        texts = self.seen_text
        debug = grounding_debug_enabled()  # origin only names the source in debug events
        for url, raw in self.seen.items():  # annotations are read first: never a cited URL
            rank += 1
            title, snippet = texts.get(url, no_text)
            if not title and snippet is not None:
                title = title_from_text(snippet)
            origin = (
                f"web_search_call.{raw.get('type', 'source')}"
                if debug and isinstance(raw, dict)
                else None
            )
            if not add(url, title=title, snippet=snippet, rank=rank, raw=raw, origin=origin):
                self.dropped += 1
        citations = collector.citations(close_rank_gaps=True)
        self.attributions = collector.attributions()
        if grounding_debug_enabled():
            _log.debug(
                "openai_citations_extracted",
                annotations=self.annotations,
                cited_urls=len(self.cited),
                other_urls=len(self.seen),
                citations=len(citations),
                tool_calls=self.tool_calls,
                queries=len(self.queries),
                non_url_sources=len(self.non_url),
                skipped=self.dropped,
            )
        return citations

    def _skip(self, what: str) -> None:
        self.dropped += 1
        _debug("openai_item_skipped", item=what)


def _url_citation_location(fields: Mapping[str, Any]) -> Location:
    """The first annotation's own offsets into its answer part, as OpenAI gives them."""
    location: Location = {"type": "url_citation"}
    start, end = fields.get("start_index"), fields.get("end_index")
    if type(start) is int and type(end) is int:
        location["start_index"] = start
        location["end_index"] = end
    return location


def _call_ref(item: Mapping[str, Any]) -> dict[str, str] | None:
    """The search call's type and id, kept beside each source it found (forensics: which
    search found it); None when the call has no id."""
    call_id = item.get("id")
    if type(call_id) is not str:
        return None
    kind = item.get("type")
    return {"type": kind if type(kind) is str else "web_search_call", "id": call_id}


def _debug(event: str, **fields: Any) -> None:
    if grounding_debug_enabled():
        _log.debug(event, provider="openai", **fields)
