"""Cost per cited source: what a group's answers cost, spread over the sources they cite.

Each answered row's estimated cost (``response.usage.cost.total``, written by the batch runner)
is split evenly over the sources its answer cites (citations with ``cited`` true; a citation
without the key counts as cited): an answer that cost 0.04 and cites four sources gives each
0.01. Per group this gives:

- ``total``: the cost of the priced answers, in ``currency``;
- ``cited_sources``: how many cited sources those answers have in all;
- ``per_cited_source``: the cost of the answers that cite something divided by their cited
  sources, i.e. the average share of a cited source;
- ``uncited_cost``: the cost of the priced answers that cite nothing, which no source carries;
- ``top_domains``: the domains whose cited sources carry the most cost (by ``source_domain``;
  a redirect-only citation carries it for its redirector's domain, the only one known).

Answers without a cost (model not in the price table, or rows written before costs existed) are
``unpriced`` and left out of every figure; so are answers priced in another currency than the
group's first. Failed rows are not counted: the batch output keeps no answer for them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SourceCost"]

_DIGITS = 6


@dataclass
class SourceCost:
    """The cost figures of one group of answered rows (see the module docstring)."""

    currency: str | None = None
    priced: int = 0
    unpriced: int = 0
    total: float = 0.0
    citing_cost: float = 0.0
    cited_sources: int = 0
    uncited_cost: float = 0.0
    domain_cost: Counter[str] = field(default_factory=Counter)
    domain_sources: Counter[str] = field(default_factory=Counter)

    def add(self, response: object) -> None:
        """Count one answered row's response (a dict as the batch output holds it)."""
        cost = _get(_get(response, "usage"), "cost")
        amount = _get(cost, "total")
        currency = _get(cost, "currency")
        if not _is_amount(amount) or not isinstance(currency, str):
            self.unpriced += 1
            return
        if self.currency is None:
            self.currency = currency
        elif currency != self.currency:
            self.unpriced += 1
            return
        self.priced += 1
        self.total += amount
        domains = _cited_domains(_get(response, "citations"))
        if not domains:
            self.uncited_cost += amount
            return
        share = amount / len(domains)
        self.citing_cost += amount
        self.cited_sources += len(domains)
        for domain in domains:
            self.domain_cost[domain] += share
            self.domain_sources[domain] += 1

    @property
    def per_cited_source(self) -> float | None:
        return self.citing_cost / self.cited_sources if self.cited_sources else None

    def top_domains(self, limit: int | None = None) -> list[tuple[str, float, int]]:
        """``(domain, cost carried, cited sources)``, most cost first, ties by name."""
        ranked = sorted(self.domain_cost.items(), key=lambda item: (-item[1], item[0]))
        if limit is not None:
            ranked = ranked[:limit]
        return [(domain, amount, self.domain_sources[domain]) for domain, amount in ranked]

    def to_dict(self, *, top: int | None = 10) -> dict[str, Any]:
        per_source = self.per_cited_source
        return {
            "currency": self.currency,
            "priced_responses": self.priced,
            "unpriced_responses": self.unpriced,
            "total": round(self.total, _DIGITS),
            "cited_sources": self.cited_sources,
            "per_cited_source": None if per_source is None else round(per_source, _DIGITS),
            "uncited_cost": round(self.uncited_cost, _DIGITS),
            "top_domains": [
                {"domain": domain, "cost": round(amount, _DIGITS), "cited_sources": sources}
                for domain, amount, sources in self.top_domains(top)
            ],
        }


def _cited_domains(citations: object) -> list[str]:
    """The ``source_domain`` of each cited source ("unknown" where it names none)."""
    if not isinstance(citations, list):
        return []
    domains = []
    for citation in citations:
        if not isinstance(citation, Mapping) or citation.get("cited") is False:
            continue
        domain = citation.get("source_domain")
        domains.append(domain.strip() if isinstance(domain, str) and domain.strip() else "unknown")
    return domains


def _is_amount(value: object) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    return math.isfinite(value) and value >= 0


def _get(container: object, name: str) -> Any:
    return container.get(name) if isinstance(container, Mapping) else None
