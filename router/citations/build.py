"""Building uniform citations and merging duplicates (DESIGN.md section 3).

Every adapter builds its citations here, so the domain rules (``derive``) live in one place.
:func:`make_citation` builds one citation and :func:`dedupe_citations` merges a list;
:class:`CitationCollector` does both for a whole reply and gives exactly what they give, but
reads each URL once (the dedup key comes from the same parse as the canonical URL), builds each
kept citation once, and copies ``raw`` only for the citations that survive the merge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast, get_args, get_type_hints

from router.call_limits import current_limits
from router.citations.attributions import Mark, attribution, ordered_attributions
from router.citations.derive import NOT_REDIRECT, REDIRECT_ONLY, Derived, derive
from router.citations.domains import looks_like_domain
from router.citations.raw import jsonable_raw
from router.citations.text import CITED_TEXT_LIMIT, SNIPPET_LIMIT, TITLE_LIMIT, sanitize_text
from router.citations.urls import dedup_key
from router.logging import get_logger, grounding_debug_enabled
from router.types import Attribution, Citation, Location, LocationType, SourceType, Span, Vendor

__all__ = [
    "CITED_TEXT_LIMIT",
    "DOCUMENT_PREFIX",
    "SNIPPET_LIMIT",
    "TITLE_LIMIT",
    "CitationCollector",
    "citation_key",
    "dedupe_citations",
    "document_domain",
    "make_citation",
    "sanitize_text",
]

_log = get_logger(__name__)


def _raw_copy(raw: Mapping[str, Any] | None, redirect: int) -> dict[str, Any]:
    """``raw`` as a JSON-able copy of its own, flagged when the citation's url is a redirect link.

    ``redirect`` is true whenever the url is a redirector's link; ``redirect_only`` says whether
    the true domain is unknown (``source_domain`` is then the redirector's own).
    """
    copied: dict[str, Any] = jsonable_raw(raw) if raw else {}
    if redirect != NOT_REDIRECT:
        copied["redirect"] = True
        copied["redirect_only"] = redirect == REDIRECT_ONLY
    return copied


# Location keys that hold provider indices (non-negative ints); the others hold text.
_LOCATION_HINTS = get_type_hints(Location)
_LOCATION_INDEX_KEYS = frozenset(key for key, hint in _LOCATION_HINTS.items() if hint is int)
_LOCATION_NULLABLE_KEYS = frozenset(
    key for key, hint in _LOCATION_HINTS.items() if type(None) in get_args(hint)
)
_LOCATION_TYPES = frozenset(get_args(LocationType))


def _location_copy(location: Location) -> Location | None:
    """A clean copy of ``location``, or None when it names no kind.

    Keys the schema does not name are left out, an index that is not a non-negative integer
    too (a provider's -1 or "3" says nothing usable), and text is cleaned like a title (text
    that cleans to nothing is left out, or None where the key allows it).
    """
    if type(location) is dict and len(location) == 2 and location.get("type") == "grounding_chunk":
        index = location.get("chunk_index")
        if type(index) is int and index >= 0:
            # The Gemini chunk location, once per mark: both keys are kept as they are below.
            return location.copy()
    if type(location) is not dict and not isinstance(location, Mapping):
        return None
    kind = location.get("type")
    if kind not in _LOCATION_TYPES:
        return None
    copied: dict[str, object] = {}
    for key, value in location.items():
        if key in _LOCATION_INDEX_KEYS:
            if type(value) is int and value >= 0:
                copied[key] = value
        elif key == "type":
            copied[key] = kind  # one of the kinds, as checked above: nothing to clean
        elif key in _LOCATION_HINTS and (value is None or type(value) is str):
            text = value if value is None else sanitize_text(value, limit=TITLE_LIMIT)
            # Text that cleans to nothing is no value: kept as None only where None is allowed.
            if text is not None or key in _LOCATION_NULLABLE_KEYS:
                copied[key] = text
    return cast(Location, copied)


DOCUMENT_PREFIX = "document:"


def document_domain(label: str) -> str:
    """The ``source_domain`` of a citation of a supplied document: ``"document:<label>"``.

    The label is the document's title (or its position) with each run of whitespace written as
    one "-", so the label stays one token wherever domains are listed: "Q3 report" gives
    ``"document:Q3-report"``.
    """
    cleaned = sanitize_text(label, limit=TITLE_LIMIT) or "untitled"
    return DOCUMENT_PREFIX + "-".join(cleaned.split())


def _document_source(label: str, title: str | None, source_type: SourceType | None) -> Derived:
    """What a supplied document's citation carries instead of a URL's derivation."""
    clean_title = sanitize_text(title, limit=TITLE_LIMIT) if title is not None else None
    return Derived(
        url=None,
        key=None,
        domain=document_domain(label),
        title=clean_title,
        source_type=source_type or "doc",
        redirect=NOT_REDIRECT,
        how="document",
    )


def _rank(rank: object) -> int | None:
    if type(rank) is int:  # the common case first
        return rank if rank >= 1 else None
    if isinstance(rank, int) and not isinstance(rank, bool) and rank >= 1:
        return rank
    return None


def _log_derivation(
    provider: Vendor,
    derived: Derived,
    *,
    had_url: bool,
    rank: object,
    nested_url_count: int,
    origin: str | None,
) -> None:
    """The debug event of one citation's derivation: how its domain came, or why it has none."""
    if not derived.domain:
        _log.debug(
            "citation_dropped",
            provider=provider,
            origin=origin,
            rank=rank,
            reason="no_source_domain",
            had_url=had_url,
            nested_url_count=nested_url_count,
        )
        return
    _log.debug(
        "citation_domain_derived",
        provider=provider,
        origin=origin,
        rank=rank,
        how=derived.how,
        source_domain=derived.domain,
        source_type=derived.source_type,
    )


def make_citation(
    *,
    provider: Vendor,
    url: str | None,
    title: str | None = None,
    snippet: str | None = None,
    rank: int | None = None,
    raw: Mapping[str, Any] | None = None,
    spans: Sequence[Span] = (),
    cited: bool = False,
    cited_text: str | None = None,
    location: Location | None = None,
    nested_urls: Sequence[str | None] = (),
    resolved_url: str | None = None,
    domain_hint: str | None = None,
    source_type: SourceType | None = None,
    document: str | None = None,
    origin: str | None = None,
) -> Citation | None:
    """Build one uniform citation, or None when no ``source_domain`` can be derived at all.

    ``url`` in the result is the canonical end-site URL when one is known, else the canonical
    redirect URL (None only when no http(s) URL exists). ``raw`` is copied, never mutated.
    ``cited_text`` is the passage the provider quotes for the source (cleaned, at most
    ``CITED_TEXT_LIMIT`` characters); ``location`` where in the source it is (copied).
    ``source_type`` forces the type (e.g. "doc" for retrieved document chunks). ``document``
    makes a citation of a document the request supplied, named by that label (its title, or
    its position): ``url`` None, ``source_domain`` ``"document:<label>"``, type "doc". ``origin``
    names where in the provider's reply the source was found; only the forensic debug events
    use it.
    """
    collector = CitationCollector(provider)
    kept = collector.add(
        url,
        title=title,
        snippet=snippet,
        rank=rank,
        raw=raw,
        spans=[Span(start=s["start"], end=s["end"], text=s["text"]) for s in spans],
        cited=cited,
        cited_text=cited_text,
        location=location,
        nested_urls=nested_urls,
        resolved_url=resolved_url,
        domain_hint=domain_hint,
        source_type=source_type,
        document=document,
        origin=origin,
    )
    if not kept:
        return None
    _, citation, raw_given, redirect = collector._entries[0]  # one source, nothing merged
    citation["raw"] = _raw_copy(raw_given, redirect)
    return citation


def _url_less_key(citation: Citation) -> str:
    # No URL at all (a document chunk named by its domain): only identical ones merge.
    return f"\0{citation['source_domain']}\0{citation['title'] or ''}"


def citation_key(citation: Citation) -> str:
    """The key citations of one source share: ``dedup_key`` of the URL, or domain and title."""
    url = citation["url"]
    return dedup_key(url) if url else _url_less_key(citation)


def _better_title(current: str | None, candidate: str | None) -> str | None:
    """Keep the first non-empty title, unless it is a bare domain and a real title turns up."""
    if not candidate:
        return current
    if not current:
        return candidate
    if looks_like_domain(current) and not looks_like_domain(candidate):
        return candidate
    return current


def _rank_order(citation: Citation) -> tuple[bool, int]:
    rank = citation["rank"]
    return (rank is None, rank or 0)


def _by_rank(entry: tuple[str, Citation, Any, int]) -> tuple[bool, int]:
    return _rank_order(entry[1])


# (dedup key, citation, raw still to copy, derive's redirect flag)
_Entry = tuple[str, Citation, Mapping[str, Any] | None, int]


def _merge(entries: list[_Entry], *, in_order: bool, copy: bool) -> list[_Entry]:
    """The entries whose citations the merge keeps, merged by key, in rank order.

    ``in_order``: the entries already come in rank order (sorting would not move any).
    ``copy``: keep copies of the citations, leaving the ones given untouched.
    See ``dedupe_citations`` for what a merge keeps.
    """
    ordered = entries if in_order else sorted(entries, key=_by_rank)
    merged: dict[str, _Entry] = {}
    for entry in ordered:
        key, citation = entry[0], entry[1]
        kept_entry = merged.get(key)
        if kept_entry is None:
            if copy:
                copied = citation.copy()
                copied["spans"] = list(citation["spans"])
                merged[key] = (key, copied, entry[2], entry[3])
            else:
                merged[key] = entry
            continue
        kept = kept_entry[1]
        kept["title"] = _better_title(kept["title"], citation["title"])
        kept["snippet"] = kept["snippet"] or citation["snippet"]
        kept["cited"] = kept["cited"] or citation["cited"]
        kept["cited_text"] = kept["cited_text"] or citation["cited_text"]
        kept["location"] = kept["location"] or citation["location"]
        seen = {(span["start"], span["end"], span["text"]) for span in kept["spans"]}
        for span in citation["spans"]:
            if (span["start"], span["end"], span["text"]) not in seen:
                seen.add((span["start"], span["end"], span["text"]))
                kept["spans"].append(Span(start=span["start"], end=span["end"], text=span["text"]))
    result = list(merged.values())
    for entry in result:
        spans = entry[1]["spans"]
        if len(spans) > 1:
            spans.sort(key=lambda span: (span["start"], span["end"]))
    if grounding_debug_enabled():
        _log.debug("citations_deduplicated", before=len(ordered), after=len(result))
    return result


def dedupe_citations(citations: Iterable[Citation]) -> list[Citation]:
    """Merge citations of the same source (by ``dedup_key`` of their URL), ordered by rank.

    The earliest-ranked one is kept; spans are merged, the best non-empty title and the first
    non-empty snippet, cited text and location kept, ``cited`` is true if any was cited. Inputs
    are not mutated.
    """
    entries: list[_Entry] = [
        (citation_key(citation), citation, None, NOT_REDIRECT) for citation in citations
    ]
    return [entry[1] for entry in _merge(entries, in_order=False, copy=True)]


class CitationCollector:
    """The citations of one reply: ``add`` each source, then ``citations()`` once.

    The marks given with each source (the places the answer cites it) become the reply's
    attributions: ``attributions()``, after ``citations()``, points each at the citation its
    source was merged into, and keeps every mark's own passage.

    Gives what ``dedupe_citations`` of the ``make_citation`` results gives, cheaper: the dedup
    key comes from the parse that made the canonical URL, each citation dict is built once, and
    ``raw`` is copied only for the citations the merge keeps (the provider values must not
    change in between, which holds within one extraction).
    """

    __slots__ = (
        "_entries",
        "_in_order",
        "_kept_index",
        "_last_rank",
        "_limits",
        "_marks",
        "_unranked",
        "provider",
    )

    def __init__(self, provider: Vendor) -> None:
        self.provider: Vendor = provider
        self._entries: list[_Entry] = []
        # The call's limits: past max_citations sources, the rest are cut (and counted there).
        self._limits = current_limits()
        # Whether the entries so far are in rank order: ranks never decreasing, unranked last.
        self._in_order = True
        self._last_rank = 0
        self._unranked = False
        # (dedup key of the source, its marks): resolved to citation indices by attributions()
        self._marks: list[tuple[str, Sequence[Mark]]] = []
        self._kept_index: dict[str, int] = {}

    def add(
        self,
        url: str | None,
        *,
        title: str | None = None,
        snippet: str | None = None,
        rank: int | None = None,
        raw: Mapping[str, Any] | None = None,
        spans: list[Span] | None = None,
        cited: bool = False,
        cited_text: str | None = None,
        location: Location | None = None,
        nested_urls: Sequence[str | None] = (),
        resolved_url: str | None = None,
        domain_hint: str | None = None,
        source_type: SourceType | None = None,
        document: str | None = None,
        origin: str | None = None,
        marks: Sequence[Mark] = (),
    ) -> bool:
        """Add one source (``make_citation``'s arguments); False when it names no domain.

        ``marks``: the places in the answer that cite this source (see ``attributions()``).

        Unlike ``make_citation``, the collector keeps ``spans`` (the list and its dicts) as its
        citation's own: pass span dicts made for this source that nothing else holds. Past the
        call's ``max_citations`` sources, a source is cut before any work is done on it: a reply
        naming 200,000 sources costs what one naming the limit does.
        """
        limits = self._limits
        if (
            limits is not None
            and limits.max_citations is not None
            and len(self._entries) >= limits.max_citations
        ):
            limits.citations_cut += 1
            return True
        found = (
            derive(
                url,
                title,
                nested_urls=nested_urls,
                resolved_url=resolved_url,
                domain_hint=domain_hint,
                source_type=source_type,
            )
            if document is None
            else _document_source(document, title, source_type)
        )
        if grounding_debug_enabled():
            _log_derivation(
                self.provider,
                found,
                had_url=url is not None,
                rank=rank,
                nested_url_count=len(nested_urls),
                origin=origin,
            )
        if not found.domain:
            return False
        # Built here rather than by _citation(): this runs once per source of every reply.
        citation: Citation = {
            "provider": self.provider,
            "url": found.url,
            "source_domain": found.domain,
            "title": found.title,
            "snippet": (
                None
                if snippet is None
                else sanitize_text(snippet, limit=SNIPPET_LIMIT, ellipsis_after=True)
            ),
            "source_type": found.source_type,
            "rank": rank if type(rank) is int and rank >= 1 else _rank(rank),
            "raw": {},  # copied from `raw` in citations(), for the kept citations only
            "spans": [] if spans is None else spans,
            "cited": bool(cited),
            "cited_text": (
                None if cited_text is None else sanitize_text(cited_text, limit=CITED_TEXT_LIMIT)
            ),
            "location": None if location is None else _location_copy(location),
        }
        key = found.key if found.key is not None else _url_less_key(citation)
        self._entries.append((key, citation, raw, found.redirect))
        if marks:
            self._marks.append((key, marks))
        if self._in_order:
            kept_rank = citation["rank"]
            if kept_rank is None:
                self._unranked = True
            elif self._unranked or kept_rank < self._last_rank:
                self._in_order = False
            else:
                self._last_rank = kept_rank
        return True

    def citations(self, *, close_rank_gaps: bool = False) -> list[Citation]:
        """The merged citations in rank order, each with its own copy of ``raw``.

        ``close_rank_gaps``: rank them 1, 2, 3... again where dropped or merged sources left gaps
        (for providers whose ranks are positions the collector assigned, not the provider's own).
        """
        kept = _merge(self._entries, in_order=self._in_order, copy=False)
        for _, citation, raw, redirect in kept:
            citation["raw"] = _raw_copy(raw, redirect)
        citations = [entry[1] for entry in kept]
        self._kept_index = {entry[0]: index for index, entry in enumerate(kept)}
        if close_rank_gaps and citations and citations[-1]["rank"] != len(citations):
            for position, citation in enumerate(citations, start=1):
                citation["rank"] = position
        return citations

    def attributions(self) -> list[Attribution]:
        """The marks of the kept sources as attributions in answer order (after ``citations()``).

        Each points at the citation its source merged into and keeps its own passage and
        location. Marks of a source that named no domain, or that a call limit cut, are left out
        with it.
        """
        kept_index = self._kept_index
        found: list[Attribution] = []
        for key, marks in self._marks:
            index = kept_index.get(key)
            if index is None:
                continue
            for mark in marks:
                location = None if mark.location is None else _location_copy(mark.location)
                found.append(attribution(mark, index, location))
        return ordered_attributions(found)
