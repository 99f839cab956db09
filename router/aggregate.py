"""The cross-provider view of citations: one entry per source, the providers that cite it.

``aggregate(outcomes)`` takes the outcomes of several providers asked the same question (each
an answer, or the ``RouterError`` it failed with) and gives one entry per canonical source (its
``dedup_key``), saying which providers cite it (``providers_cited``: their answer references
it), which only found it in a search (``providers_seen``), each provider's rank and spans, and
agreement figures per pair of providers: the Jaccard overlap of the URLs they cite
(``url_jaccard``, URL matches only), of the domains they cite (``domain_jaccard``), how many
sources they share only through a domain join (``domain_joins``), and the sources only one
provider cites. A provider that failed (a provider
error, or REQUIRED grounding not met, even when its error keeps the rejected answer) adds
nothing: no entry, no pair; ``providers`` lists those that answered. ``cited_domains`` lists
each provider's cited domains, the sets the domain overlap compares: a redirect link whose true
domain is unknown names only its redirector, so it is in no domain set (it still counts as a
source of its own).

Redirect links: Vertex and Gemini cite ``vertexaisearch.cloud.google.com`` links whose target
cannot be known offline. Such a citation joins another provider's entry through its derived
``source_domain`` only: when its true domain is known (not the redirector's own) and another
provider cites or found a URL on that domain, it joins the best-ranked such entry that its own
provider is not already in, and the entry is flagged ``matched_by: "domain"``. So a domain join
never folds two sources of one provider (two redirect links, or a link and a page cited by URL)
into one entry. Otherwise it stays an entry of its own, keyed by its redirect link. A domain
join is no URL agreement: ``url_jaccard`` and ``shared_urls`` compare the canonical URLs the
two providers cite, and the joins are counted apart in ``domain_joins``. A pair's figures are
those of the two providers alone: which entry a redirect joins depends on who else was asked,
but the figures of a pair never do. A source without any URL (a cited document) is keyed by its
domain label and title.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal, TypedDict
from urllib.parse import urlsplit

from router.citations import dedup_key, is_redirect_url, looks_like_domain, registrable_domain
from router.errors import RouterError
from router.types import Citation, LLMResponse, Span

__all__ = ["Aggregate", "AggregateEntry", "Agreement", "aggregate", "spec_view"]

MatchedBy = Literal["url", "domain"]
# The citations each entry holds, as (vendor, citation), by entry key.
Members = dict[str, list[tuple[str, Citation]]]


class AggregateEntry(TypedDict):
    """One source as several providers reported it."""

    key: str
    url: str | None
    source_domain: str
    titles: list[str]
    providers_cited: list[str]
    providers_seen: list[str]
    ranks: dict[str, int | None]
    spans: dict[str, list[Span]]
    cited_count: int
    matched_by: MatchedBy


class Agreement(TypedDict):
    """How far two providers cite the same things (None when neither cites anything).

    ``url_jaccard`` / ``shared_urls`` count URL matches only; ``domain_joins`` counts the sources
    the two share only because a redirect link joined the other's page by its domain.
    """

    providers: list[str]
    url_jaccard: float | None
    domain_jaccard: float | None
    shared_urls: int
    shared_domains: int
    domain_joins: int


@dataclass(frozen=True, slots=True)
class Aggregate:
    """Entries sorted by how many providers cite them, then best rank; and agreement figures."""

    providers: list[str]
    entries: list[AggregateEntry]
    agreement: list[Agreement] = field(default_factory=list)
    cited_by_one: dict[str, list[str]] = field(default_factory=dict)
    cited_domains: dict[str, list[str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able view (batch rows, ``compare --json``)."""
        return {
            "providers": list(self.providers),
            "entries": [dict(entry) for entry in self.entries],
            "agreement": [dict(pair) for pair in self.agreement],
            "cited_by_one": {vendor: list(keys) for vendor, keys in self.cited_by_one.items()},
            "cited_domains": {
                vendor: list(domains) for vendor, domains in self.cited_domains.items()
            },
        }


def aggregate(
    outcomes: Mapping[str, LLMResponse | RouterError] | Iterable[LLMResponse],
) -> Aggregate:
    """The cross-provider aggregate of ``outcomes`` (a mapping by vendor, or responses)."""
    by_vendor = _by_vendor(outcomes)
    ordered = sorted(_entries(by_vendor).values(), key=_entry_order)
    providers = list(by_vendor)
    domains = _cited_domains(by_vendor)
    return Aggregate(
        providers=providers,
        entries=ordered,
        agreement=_agreement(by_vendor, domains),
        cited_by_one=_cited_by_one(providers, ordered),
        cited_domains={vendor: sorted(found) for vendor, found in domains.items()},
    )


def spec_view(outcomes: Mapping[str, LLMResponse | RouterError]) -> dict[str, Any]:
    """The multi-provider seed's shape of ``outcomes`` (a mapping by vendor, in request order).

    ``citations``: one item per source at least one provider cites, in the aggregate's order,
    each exactly ``{canonical_url, domains, providers_cited, title}``: the entry's canonical URL
    (its https form when the http form was cited), every hostname seen under it (a redirect
    link gives its source's domain when known), the citing vendors in request order, and the
    best title (a domain-like title, as Vertex gives, only when no other exists). ``providers``:
    ``{provider, citations}`` per vendor in request order, with that provider's own citations
    (empty for a provider that failed).
    """
    by_vendor = _by_vendor(outcomes)
    order = {vendor: index for index, vendor in enumerate(outcomes)}
    members: Members = {}
    entries = sorted(_entries(by_vendor, members).values(), key=_entry_order)
    return {
        "citations": [
            _spec_citation(entry, members[entry["key"]], order)
            for entry in entries
            if entry["providers_cited"]
        ],
        "providers": [
            {
                "provider": vendor,
                "citations": [dict(c) for c in outcome.citations]
                if isinstance(outcome, LLMResponse)
                else [],
            }
            for vendor, outcome in outcomes.items()
        ],
    }


def _spec_citation(
    entry: AggregateEntry, members: list[tuple[str, Citation]], order: Mapping[str, int]
) -> dict[str, Any]:
    ordered = sorted(members, key=lambda member: (order[member[0]], *_rank_order(member[1])))
    url = entry["url"]
    if url is not None and url.startswith("http://"):
        url = "https://" + url.removeprefix("http://")  # the seed's canonical form
    domains: list[str] = []
    for _, citation in ordered:
        host = _host_seen(citation)
        if host and host not in domains:
            domains.append(host)
    titles = [
        (looks_like_domain(title), *_rank_order(citation), order[vendor], title)
        for vendor, citation in ordered
        if (title := citation["title"])
    ]
    return {
        "canonical_url": url,
        "domains": domains,
        "providers_cited": sorted(entry["providers_cited"], key=order.__getitem__),
        "title": min(titles)[-1] if titles else None,
    }


def _rank_order(citation: Citation) -> tuple[bool, int]:
    rank = citation["rank"]
    return (rank is None, rank or 0)


def _host_seen(citation: Citation) -> str | None:
    """The citation's hostname; for a redirect link, its source's domain when that is known."""
    url = citation["url"]
    if url is None:
        return citation["source_domain"] or None
    if is_redirect_url(url):
        known = _true_domain_of_redirect(citation)
        if known is not None:
            return known
    return urlsplit(url).hostname


def _entries(
    by_vendor: Mapping[str, LLMResponse], members: Members | None = None
) -> dict[str, AggregateEntry]:
    """One entry per source the providers' answers name, redirects joined as the module says.

    With ``members``, each entry's citations are recorded there under its key.
    """
    entries: dict[str, AggregateEntry] = {}
    pending: list[tuple[str, Citation]] = []  # redirect links that may join by domain
    for vendor, response in by_vendor.items():
        for citation in response.citations:
            if _true_domain_of_redirect(citation) is not None:
                pending.append((vendor, citation))
            else:
                _add(entries, _key(citation), vendor, citation, "url", members=members)
    for vendor, citation in pending:
        joined = _domain_partner(entries, citation["source_domain"], vendor)
        if joined is not None:
            _add(entries, joined, vendor, citation, "domain", members=members)
        else:
            _add(entries, _key(citation), vendor, citation, "url", members=members)
    return entries


def _by_vendor(
    outcomes: Mapping[str, LLMResponse | RouterError] | Iterable[LLMResponse],
) -> dict[str, LLMResponse]:
    """The answers by vendor; the providers that failed are left out."""
    if isinstance(outcomes, Mapping):
        return {v: o for v, o in outcomes.items() if isinstance(o, LLMResponse)}
    by_vendor: dict[str, LLMResponse] = {}
    for response in outcomes:
        if response.vendor in by_vendor:
            raise ValueError(f"two responses of {response.vendor!r}: aggregate one per provider")
        by_vendor[response.vendor] = response
    return by_vendor


def _key(citation: Citation) -> str:
    url = citation["url"]
    if url:
        return dedup_key(url)
    return f"\0{citation['source_domain']}\0{citation['title'] or ''}"


def _true_domain_of_redirect(citation: Citation) -> str | None:
    """The source's own domain when the citation's URL is a redirect link that names it."""
    url = citation["url"]
    if not url or not is_redirect_url(url):
        return None
    domain = citation["source_domain"]
    return domain if domain != registrable_domain(url) else None


def _known_domain(citation: Citation) -> str | None:
    """The citation's source domain, or None for a redirect link that names only its redirector."""
    url = citation["url"]
    if url and is_redirect_url(url):
        return _true_domain_of_redirect(citation)
    return citation["source_domain"] or None


def _cited_domains(by_vendor: Mapping[str, LLMResponse]) -> dict[str, set[str]]:
    """Each provider's cited domains whose source is known."""
    found: dict[str, set[str]] = {}
    for vendor, response in by_vendor.items():
        domains = (_known_domain(c) for c in response.citations if c["cited"])
        found[vendor] = {domain for domain in domains if domain}
    return found


def _domain_partner(entries: Mapping[str, AggregateEntry], domain: str, vendor: str) -> str | None:
    """The best-ranked entry of other providers on ``domain``, found by URL, without ``vendor``."""
    candidates = [
        entry
        for entry in entries.values()
        if entry["source_domain"] == domain
        and entry["url"] is not None
        and not is_redirect_url(entry["url"])
        and vendor not in entry["ranks"]
    ]
    if not candidates:
        return None
    return min(candidates, key=_best_rank)["key"]


def _add(
    entries: dict[str, AggregateEntry],
    key: str,
    vendor: str,
    citation: Citation,
    matched_by: MatchedBy,
    *,
    members: Members | None = None,
) -> None:
    if members is not None:
        members.setdefault(key, []).append((vendor, citation))
    entry = entries.get(key)
    if entry is None:
        entry = entries[key] = AggregateEntry(
            key=key,
            url=citation["url"],
            source_domain=citation["source_domain"],
            titles=[],
            providers_cited=[],
            providers_seen=[],
            ranks={},
            spans={},
            cited_count=0,
            matched_by=matched_by,
        )
    elif matched_by == "domain":
        entry["matched_by"] = "domain"
    title = citation["title"]
    if title and title not in entry["titles"]:
        entry["titles"].append(title)
    ranks, rank = entry["ranks"], citation["rank"]
    known = ranks.get(vendor)
    if vendor not in ranks or (rank is not None and (known is None or rank < known)):
        ranks[vendor] = rank  # a provider's best rank for the source
    entry["spans"].setdefault(vendor, []).extend(citation["spans"])
    cited, seen = entry["providers_cited"], entry["providers_seen"]
    if citation["cited"]:
        if vendor not in cited:
            cited.append(vendor)
        if vendor in seen:
            seen.remove(vendor)
    elif vendor not in cited and vendor not in seen:
        seen.append(vendor)
    entry["cited_count"] = len(cited)


def _best_rank(entry: AggregateEntry) -> tuple[bool, int, str]:
    ranks = [rank for rank in entry["ranks"].values() if rank is not None]
    return (not ranks, min(ranks) if ranks else 0, entry["key"])


def _entry_order(entry: AggregateEntry) -> tuple[int, int, bool, int, str]:
    missing, best, key = _best_rank(entry)
    return (-entry["cited_count"], -len(entry["ranks"]), missing, best, key)


def _jaccard(left: set[str], right: set[str]) -> float | None:
    union = left | right
    return len(left & right) / len(union) if union else None


def _agreement(
    by_vendor: Mapping[str, LLMResponse], cited_domains: Mapping[str, set[str]]
) -> list[Agreement]:
    """Per pair of providers, over the entries of the two alone (see the module)."""
    pairs: list[Agreement] = []
    for left, right in combinations(by_vendor, 2):
        entries = _entries({left: by_vendor[left], right: by_vendor[right]}).values()
        urls = {vendor: _cited_keys(by_vendor[vendor]) for vendor in (left, right)}
        joins = sum(
            1
            for entry in entries
            if entry["matched_by"] == "domain"
            and left in entry["providers_cited"]
            and right in entry["providers_cited"]
        )
        pairs.append(
            Agreement(
                providers=[left, right],
                url_jaccard=_jaccard(urls[left], urls[right]),
                domain_jaccard=_jaccard(cited_domains[left], cited_domains[right]),
                shared_urls=len(urls[left] & urls[right]),
                shared_domains=len(cited_domains[left] & cited_domains[right]),
                domain_joins=joins,
            )
        )
    return pairs


def _cited_keys(response: LLMResponse) -> set[str]:
    """The keys of the sources the answer cites, by their own URL (no domain joins)."""
    return {_key(citation) for citation in response.citations if citation["cited"]}


def _cited_by_one(
    providers: Sequence[str], entries: Sequence[AggregateEntry]
) -> dict[str, list[str]]:
    alone: dict[str, list[str]] = {vendor: [] for vendor in providers}
    for entry in entries:
        if entry["cited_count"] == 1:
            alone[entry["providers_cited"][0]].append(entry["url"] or entry["source_domain"])
    return alone
