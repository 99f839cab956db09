"""Counting where citations point: TLDs or public suffixes, registrable domains, redirectors.

Every function takes citations as the router builds them (plain dicts) or as any object with the
same attributes, and never raises on odd input: an entry that is not a citation, or that names
no usable host, is skipped. A citation's host is read from ``source_domain`` first (redirect-aware,
DESIGN.md section 3) and from ``url`` when ``source_domain`` is missing or unusable.

Redirect-only citations, marked ``raw["redirect_only"] = true``, carry the redirector's domain
(for Vertex, ``vertexaisearch.cloud.google.com`` counts as ``google.com``), not their source's:
their true domain is unknown. They are counted apart: the TLD and domain counts leave them out
unless ``include_redirects=True``. ``raw["redirect"] = true`` alone only says the citation's URL
is a redirect link; when its true domain came from a domain field or the title
(``redirect_only`` false) it counts under that domain. Output written before ``redirect_only``
existed set ``redirect`` only for redirect-only citations, and is read so.

Citations of documents the request supplied (``source_domain`` ``"document:<label>"``, no URL)
are not web sources: the TLD and domain counts never include them, and
:func:`extract_document_counts` counts them by label.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal, get_args

from als.cctlds import CCTLD_EXCEPTIONS, IDN_CCTLDS
from router.citations import DOCUMENT_PREFIX, public_suffix, registrable_domain

__all__ = [
    "CCTLD_EXCEPTIONS",
    "TldLevel",
    "cctld_for_country",
    "citation_host",
    "country_tlds",
    "counts_under_tlds",
    "extract_document_counts",
    "extract_domain_counts",
    "extract_redirector_counts",
    "extract_tld_counts",
    "is_document_citation",
    "is_redirect_citation",
    "split_document_citations",
    "split_redirect_citations",
    "top_level_label",
]

TldLevel = Literal["tld", "suffix"]
"""What ``extract_tld_counts`` counts by: the top-level label, or the whole public suffix."""
_TLD_LEVELS: tuple[str, ...] = get_args(TldLevel)

# Any registrable name under a TLD, used to ask the Public Suffix List whether the TLD exists.
_PROBE_LABEL = "example"


def _field(entry: object, name: str) -> Any:
    """``entry[name]`` for a mapping, ``entry.name`` for an object, else None."""
    if isinstance(entry, Mapping):
        return entry.get(name)
    try:
        return getattr(entry, name, None)
    except Exception:  # a property that raises is an odd entry like any other: skip it
        return None


def is_redirect_citation(citation: object) -> bool:
    """Whether the citation only knows its redirector: its true domain is unknown.

    ``raw["redirect_only"]`` says so; without that key (older output), ``raw["redirect"]``.
    """
    raw = _field(citation, "raw")
    only = _field(raw, "redirect_only")
    if isinstance(only, bool):
        return only
    return _field(raw, "redirect") is True


def is_document_citation(citation: object) -> bool:
    """Whether the citation is of a document the request supplied (``document:<label>``)."""
    domain = _field(citation, "source_domain")
    return isinstance(domain, str) and domain.startswith(DOCUMENT_PREFIX)


def split_document_citations(citations: Iterable[object]) -> tuple[list[Any], list[Any]]:
    """``(web, documents)``: citations of web sources, and of supplied documents."""
    web: list[Any] = []
    documents: list[Any] = []
    for citation in _entries(citations):
        (documents if is_document_citation(citation) else web).append(citation)
    return web, documents


def extract_document_counts(citations: Iterable[object]) -> dict[str, int]:
    """Citations per supplied document (its ``document:<label>``), most cited first."""
    counts: Counter[str] = Counter(
        _field(citation, "source_domain")
        for citation in _entries(citations)
        if is_document_citation(citation)
    )
    return _ranked(counts)


def split_redirect_citations(citations: Iterable[object]) -> tuple[list[Any], list[Any]]:
    """``(true_source, redirector)``: citations with a known source, and redirect-only ones."""
    true_source: list[Any] = []
    redirector: list[Any] = []
    for citation in _entries(citations):
        (redirector if is_redirect_citation(citation) else true_source).append(citation)
    return true_source, redirector


def citation_host(citation: object) -> str | None:
    """The text a citation's host is read from: ``source_domain``, else ``url``, else None.

    ``source_domain`` wins when it holds a usable host; a citation whose ``source_domain`` is
    empty, not a string or not a host falls back to its ``url``. A supplied document's citation
    has no host.
    """
    if is_document_citation(citation):  # "document:2" would read as host "document"
        return None
    candidates = (_field(citation, "source_domain"), _field(citation, "url"))
    texts = [text for text in candidates if isinstance(text, str) and text.strip()]
    for text in texts:
        if registrable_domain(text):
            return text
    return None


def extract_tld_counts(
    citations: Iterable[object],
    *,
    include_redirects: bool = False,
    level: TldLevel = "tld",
) -> dict[str, int]:
    """Citations per top-level domain (``com``, ``uk``, ``de``, ``xn--p1ai``), as the spec counts.

    ``level="suffix"`` counts per ICANN public suffix instead (``co.uk`` and ``gov.uk`` apart),
    the view the ALS report shows. Most frequent first (ties by name). Citations whose host has
    no public suffix (an IP address, ``localhost``) are skipped, and so are redirect-only
    citations unless ``include_redirects``.
    """
    if level not in _TLD_LEVELS:
        raise ValueError(f"level must be one of {', '.join(_TLD_LEVELS)}, not {level!r}")
    counts: Counter[str] = Counter()
    for citation in _entries(citations):
        if not include_redirects and is_redirect_citation(citation):
            continue
        host = citation_host(citation)
        suffix = public_suffix(host) if host else None
        if suffix:
            counts[suffix if level == "suffix" else top_level_label(suffix)] += 1
    return _ranked(counts)


def extract_domain_counts(
    citations: Iterable[object], *, include_redirects: bool = False
) -> dict[str, int]:
    """Citations per registrable domain (``bbc.co.uk``, ``xn--bcher-kva.de``), most first.

    An IP address or bare host counts as itself. Redirect-only citations are skipped unless
    ``include_redirects``.
    """
    counts: Counter[str] = Counter()
    for citation in _entries(citations):
        if not include_redirects and is_redirect_citation(citation):
            continue
        domain = _domain(citation)
        if domain:
            counts[domain] += 1
    return _ranked(counts)


def extract_redirector_counts(citations: Iterable[object]) -> dict[str, int]:
    """Redirect-only citations per redirector domain (``google.com`` for Vertex), most first."""
    counts: Counter[str] = Counter()
    for citation in _entries(citations):
        if is_redirect_citation(citation):
            domain = _domain(citation)
            if domain:
                counts[domain] += 1
    return _ranked(counts)


def top_level_label(suffix: str) -> str:
    """The last label of a public suffix: ``co.uk`` gives ``uk``, ``com`` gives ``com``."""
    return suffix.rpartition(".")[2]


def cctld_for_country(country: str | None) -> str | None:
    """The country-code TLD of an ISO 3166-1 alpha-2 code: ``DE`` gives ``de``, ``GB`` ``uk``.

    Case-insensitive. None for anything that is not two letters and for codes whose TLD is not
    delegated (``XK``, ``BL``), as the bundled Public Suffix List knows them.
    """
    if not isinstance(country, str) or len(country) != 2 or not country.isascii():
        return None
    if not country.isalpha():
        return None
    return _delegated_cctld(country.upper())


@lru_cache(maxsize=512)
def _delegated_cctld(code: str) -> str | None:
    tld = CCTLD_EXCEPTIONS.get(code, code.lower())
    suffix = public_suffix(f"{_PROBE_LABEL}.{tld}")
    # Wildcard ccTLDs (``*.ck``) make the probe itself a suffix; it still ends in the TLD.
    if suffix is None or top_level_label(suffix) != tld:
        return None
    return tld


def country_tlds(country: str | None) -> frozenset[str]:
    """All of a country's own TLDs: its ccTLD and its IDN ccTLDs (``RU``: ``ru``, ``xn--p1ai``)."""
    cctld = cctld_for_country(country)
    if cctld is None:
        return frozenset()
    return frozenset((cctld, *IDN_CCTLDS.get(str(country).upper(), ())))


def counts_under_tlds(tld_counts: Mapping[str, int], tlds: Collection[str]) -> dict[str, int]:
    """The entries of ``tld_counts`` under any of ``tlds``: for ``uk``, ``co.uk`` and ``uk``."""
    return {suffix: n for suffix, n in tld_counts.items() if top_level_label(suffix) in tlds}


def _domain(citation: object) -> str:
    host = citation_host(citation)
    return registrable_domain(host) if host else ""


def _entries(citations: Iterable[object]) -> Iterable[object]:
    """The entries of ``citations``, or none when it is not a list-like of entries at all."""
    if citations is None or isinstance(citations, str | bytes | Mapping):
        return ()
    try:
        return iter(citations)
    except TypeError:
        return ()


def _ranked(counts: Counter[str]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
