"""Citations and grounding evidence from an Anthropic Messages reply (pure; never raises).

Accepted replies: a ``Message`` (SDK object or plain dict, as ``POST /v1/messages`` returns
it), including the final message a stream builds. SDK objects are dumped to the dict they were
built from, so both forms take one path.

What a reply holds (provider-quirks.md section 3): ``content`` is a list of blocks in answer
order. ``server_tool_use`` blocks named ``web_search`` are the searches (``input.query``);
each is followed by a ``web_search_tool_result`` whose ``content`` is the list of results
(``{type: "web_search_result", url, title, encrypted_content, page_age}``, possibly empty) or
an error object (``{type: "web_search_tool_result_error", error_code}``, e.g.
``max_uses_exceeded``). The answer is split into many small ``text`` blocks; a block that cites
has ``citations`` (a block that does not has no such key): ``web_search_result_location``
(``url, title, cited_text, encrypted_index``) for web pages, and ``char_location``,
``page_location`` and ``content_block_location`` (``document_index``, ``document_title``,
the range) for documents the request supplied; ``search_result_location`` for search results
the request supplied.

What the extraction gives, in rank order (rank = order of first appearance):

1. the cited sources, in text order: ``cited=True``, ``cited_text`` and ``snippet`` from the
   first citation's ``cited_text``, a span per citing block (the block's character range in the
   concatenated answer ``content``), and a ``location``: ``search_result`` with the provider's
   ``encrypted_index`` and ``search_result_index`` (the page's position among the results of
   the search that found it, when it is among them), or the document location with the
   provider's own indices. Document citations have ``url`` None and ``source_domain``
   ``"document:<title>"`` (``"document:<n>"``, n = ``document_index`` + 1, when untitled);
2. then every other search result, in search and result order: ``cited=False``, ``raw`` the
   result as sent (``page_age`` kept) without ``encrypted_content``, an opaque blob that only
   means something to the API in a later turn and would make every stored row kilobytes long.

``grounded_effective`` is at least one ``web_search`` server tool call. A search that failed
is a ``[CITATIONS]`` warning naming its error code, not a failure of the reply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.sdk.values import as_mapping, compact_json
from router.citations.attributions import Mark
from router.citations.build import CitationCollector
from router.logging import get_logger, grounding_debug_enabled
from router.types import Attribution, Citation, Location, Span

__all__ = [
    "AnthropicExtraction",
    "AnthropicGrounding",
    "extract_anthropic_citations",
    "read_anthropic_reply",
    "turn_separator",
]

_log = get_logger(__name__)

WEB_SEARCH_TOOL_NAME = "web_search"
WARNING_ITEM_CHARS = 300
_WEB_CITATION = "web_search_result_location"
_DOCUMENT_LOCATIONS: dict[str, tuple[str, str]] = {
    "char_location": ("start_char_index", "end_char_index"),
    "page_location": ("start_page_number", "end_page_number"),
    "content_block_location": ("start_block_index", "end_block_index"),
}
_SEARCH_RESULT_CITATION = "search_result_location"
_OMITTED_FROM_RAW = ("encrypted_content",)


@dataclass(frozen=True, slots=True)
class AnthropicGrounding:
    """Whether and how the model searched, as the reply shows it."""

    tool_call_count: int
    """``web_search`` server tool calls."""
    web_search_queries: tuple[str, ...]
    grounded_effective: bool
    search_errors: tuple[str, ...]
    """Error codes of searches that failed (``max_uses_exceeded``, ``too_many_requests``)."""
    warnings: tuple[str, ...]
    """``[CITATIONS]`` warnings: failed searches; searches without any citation extracted."""


@dataclass(frozen=True, slots=True)
class AnthropicExtraction:
    """Everything read from one reply in one pass."""

    content: str
    citations: list[Citation]
    grounding: AnthropicGrounding
    stop_reason: str | None = None
    sources_seen: int = 0
    sources_dropped: int = 0
    attributions: list[Attribution] = field(default_factory=list)
    """One per citation of a text block, in answer order, each with its own passage."""
    answer_start: int = 0
    """Where the text after the last search starts in ``content``: before it, the preamble."""


class _Cited:
    """One cited source (a URL, or a document) as first met, with its evidence."""

    __slots__ = ("cited_text", "document", "location", "marks", "raw", "spans", "title", "url")

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self.url: str | None = None
        self.document: str | None = None
        self.title: str | None = None
        self.cited_text: str | None = None
        self.location: Location | None = None
        self.spans: list[Span] = []
        self.marks: list[Mark] = []

    def add_span(self, span: Span) -> None:
        if not any(kept["start"] == span["start"] for kept in self.spans):
            self.spans.append(span)


def extract_anthropic_citations(message: object) -> list[Citation]:
    """The uniform citations of an Anthropic reply (SDK object or dict), ordered by rank."""
    return read_anthropic_reply(message).citations


def read_anthropic_reply(message: object) -> AnthropicExtraction:
    """Answer text, citations and grounding of a Messages reply."""
    reader = _Reader()
    body = as_mapping(message)
    content = body.get("content") if body is not None else None
    if isinstance(content, list):
        reader.read(content)
    elif body is not None:
        reader.skip("content")
    stop_reason = body.get("stop_reason") if body is not None else None
    return reader.finish(stop_reason if isinstance(stop_reason, str) else None)


class _Reader:
    """One pass over the content blocks; what cannot be read is skipped and counted."""

    def __init__(self) -> None:
        self.content = ""
        self.cited: dict[str, _Cited] = {}
        # Search results in search and result order: (url, raw, title, index in its search).
        self.results: list[tuple[str, Mapping[str, Any], str | None]] = []
        self.result_index: dict[str, int] = {}
        # Each distinct result URL's 1-based position over all searches, in search order.
        self.result_rank: dict[str, int] = {}
        # A block other than text came after the last text block (a search, its results).
        self.after_other_block = False
        self.searched = False
        self.answer_start = 0
        self.attributions: list[Attribution] = []
        self.queries: dict[str, None] = {}
        self.search_calls = 0
        self.search_errors: list[str] = []
        self.citations_read = 0
        self.dropped = 0
        self.first_block: object = None

    def read(self, blocks: list[Any]) -> None:
        mapped = [as_mapping(block) for block in blocks]
        if blocks:
            self.first_block = mapped[0] if mapped[0] is not None else blocks[0]
        for block in mapped:  # results first: a citation's search_result_index needs them
            if block is not None and block.get("type") == "web_search_tool_result":
                self._read_results(block.get("content"))
        for block in mapped:
            if block is None:
                self.skip("block")
                continue
            kind = block.get("type")
            if kind == "text":
                self._read_text(block)
                continue
            self.after_other_block = True
            if kind == "server_tool_use" and block.get("name") == WEB_SEARCH_TOOL_NAME:
                self._read_search(block)
            elif kind == "web_search_tool_result":
                self.searched = True  # the text so far is the preamble

    def _read_search(self, block: Mapping[str, Any]) -> None:
        self.search_calls += 1
        tool_input = as_mapping(block.get("input"))
        query = tool_input.get("query") if tool_input is not None else None
        if isinstance(query, str) and query.strip():
            self.queries[query.strip()] = None

    def _read_results(self, content: object) -> None:
        if isinstance(content, list):
            for position, item in enumerate(content):
                result = as_mapping(item)
                url = result.get("url") if result is not None else None
                if result is None or type(url) is not str:
                    self.skip("search_result")
                    continue
                raw = {k: v for k, v in result.items() if k not in _OMITTED_FROM_RAW}
                title = result.get("title")
                self.results.append((url, raw, title if type(title) is str else None))
                self.result_index.setdefault(url, position)
                self.result_rank.setdefault(url, len(self.result_rank) + 1)
            return
        error = as_mapping(content)
        if error is None:
            self.skip("search_result")
            return
        code = error.get("error_code")
        self.search_errors.append(code if isinstance(code, str) and code else "unknown_error")

    def _read_text(self, block: Mapping[str, Any]) -> None:
        text = block.get("text")
        if not isinstance(text, str):
            self.skip("text")
            return
        if self.after_other_block and text:
            self.after_other_block = False
            self.content += turn_separator(self.content, text)
        if self.searched and text:
            self.searched = False
            self.answer_start = len(self.content)
        start = len(self.content)
        self.content += text
        citations = block.get("citations")
        if not isinstance(citations, list) or not citations:
            return
        span: Span | None = (
            {"start": start, "end": len(self.content), "text": text} if text.strip() else None
        )
        for citation in citations:
            entry = as_mapping(citation)
            if entry is None or not self._read_citation(entry, span):
                self.skip("citation")

    def _read_citation(self, entry: Mapping[str, Any], span: Span | None) -> bool:
        kind = entry.get("type")
        if kind in (_WEB_CITATION, _SEARCH_RESULT_CITATION):
            url = entry.get("url") if kind == _WEB_CITATION else entry.get("source")
            if type(url) is not str or not url:
                return False
            key = "url\0" + url
            location = (
                _web_location(entry, self.result_index.get(url))
                if kind == _WEB_CITATION
                else _search_result_location(entry)
            )
            document = None
        elif isinstance(kind, str) and kind in _DOCUMENT_LOCATIONS:
            index = entry.get("document_index")
            title = entry.get("document_title")
            named = title.strip() if isinstance(title, str) and title.strip() else None
            position = index if isinstance(index, int) and not isinstance(index, bool) else -1
            if named is None and position < 0:
                return False
            document = named or str(position + 1)
            key = "doc\0" + document
            location = _document_location(kind, entry)
            url = None
        else:
            return False
        source = self.cited.get(key)
        if source is None:
            source = self.cited[key] = _Cited(entry)
            source.url, source.document, source.location = url, document, location
        if not source.title:
            title = entry.get("title") if document is None else entry.get("document_title")
            source.title = title if type(title) is str and title else None
        cited_text = entry.get("cited_text")
        # "" is what two streamed citations carried: no passage, not an empty one.
        passage = cited_text if type(cited_text) is str and cited_text else None
        if source.cited_text is None:
            source.cited_text = passage
        if span is not None:
            source.add_span(span)
            source.marks.append(Mark(span["start"], span["end"], span["text"], passage, location))
        self.citations_read += 1
        return True

    def skip(self, what: str) -> None:
        self.dropped += 1
        if grounding_debug_enabled():
            _log.debug("anthropic_item_skipped", provider="anthropic", item=what)

    def finish(self, stop_reason: str | None) -> AnthropicExtraction:
        citations = self._citations()
        warnings = [
            f"[CITATIONS] Anthropic: web search failed ({code}); the answer used the other "
            "searches, if any"
            for code in self.search_errors
        ]
        if self.search_calls > 0 and not citations:
            warnings.append(
                f"[CITATIONS] Anthropic: {self.search_calls} tool calls but 0 citations "
                f"extracted. First content block: "
                f"{compact_json(self.first_block, WARNING_ITEM_CHARS)}"
            )
        grounding = AnthropicGrounding(
            tool_call_count=self.search_calls,
            web_search_queries=tuple(self.queries),
            grounded_effective=self.search_calls > 0,
            search_errors=tuple(self.search_errors),
            warnings=tuple(warnings),
        )
        return AnthropicExtraction(
            content=self.content,
            citations=citations,
            grounding=grounding,
            stop_reason=stop_reason,
            sources_seen=len(self.cited) + len(self.results),
            sources_dropped=self.dropped,
            attributions=self.attributions,
            answer_start=self.answer_start,
        )

    def _citations(self) -> list[Citation]:
        """Ranked by search-result position (searches in order), cited or not; the cited
        sources no search returned (documents, supplied search results) come after them."""
        collector = CitationCollector("anthropic")
        add = collector.add
        result_rank = self.result_rank
        unranked = len(result_rank)
        cited_urls: set[str] = set()
        for source in self.cited.values():
            rank = result_rank.get(source.url) if source.url is not None else None
            if rank is None:
                unranked += 1
                rank = unranked
            if source.url is not None:
                cited_urls.add(source.url)
            if not add(
                source.url,
                title=source.title,
                snippet=source.cited_text,
                rank=rank,
                raw=source.raw,
                spans=source.spans,
                cited=True,
                cited_text=source.cited_text,
                location=source.location,
                document=source.document,
                origin="text.citations",
                marks=source.marks,
            ):
                self.dropped += 1
        seen: set[str] = set()
        for url, raw, title in self.results:
            if url in cited_urls or url in seen:
                continue
            seen.add(url)
            rank = result_rank[url]
            if not add(url, title=title, rank=rank, raw=raw, origin="web_search_tool_result"):
                self.dropped += 1
        citations = collector.citations(close_rank_gaps=True)
        self.attributions = collector.attributions()
        if grounding_debug_enabled():
            _log.debug(
                "anthropic_citations_extracted",
                citations_read=self.citations_read,
                cited_sources=len(self.cited),
                search_results=len(self.results),
                citations=len(citations),
                tool_calls=self.search_calls,
                search_errors=len(self.search_errors),
                skipped=self.dropped,
            )
        return citations


def turn_separator(content: str, text: str) -> str:
    """What goes between the answer so far and a text block that follows a search.

    The model's text before a search ("Let me search for that.") and after it are separate
    turns with nothing between them; the blocks keep their own whitespace, and only where
    neither side has any, a blank line keeps the turns apart (not "...that.Based on...").
    """
    if not content or content[-1].isspace() or text[0].isspace():
        return ""
    return "\n\n"


def _web_location(entry: Mapping[str, Any], result_index: int | None) -> Location:
    location: Location = {"type": "search_result"}
    encrypted = entry.get("encrypted_index")
    if type(encrypted) is str:
        location["encrypted_index"] = encrypted
    if result_index is not None:
        location["search_result_index"] = result_index
    return location


def _search_result_location(entry: Mapping[str, Any]) -> Location:
    location: Location = {"type": "search_result"}
    for key in ("search_result_index", "start_block_index", "end_block_index"):
        value = entry.get(key)
        if type(value) is int:
            location[key] = value
    return location


def _document_location(kind: str, entry: Mapping[str, Any]) -> Location:
    location: dict[str, Any] = {"type": kind}
    start_key, end_key = _DOCUMENT_LOCATIONS[kind]
    for key in ("document_index", start_key, end_key):
        value = entry.get(key)
        if type(value) is int:
            location[key] = value
    for key in ("document_title", "file_id"):
        value = entry.get(key)
        if key in entry and (value is None or type(value) is str):
            location[key] = value
    return location  # type: ignore[return-value]
