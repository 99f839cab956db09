"""How far providers cite the same sources, over the fan-out rows of a whole batch.

Each fan-out row (one question sent to several providers) carries the cross-provider aggregate
of its answers (``fanout.aggregate``): per pair of providers that both answered, the Jaccard
overlap of the sources (``url_jaccard``, by canonical URL) and of the domains
(``domain_jaccard``) they cite, and each provider's ``cited_domains``. Per pair of providers,
over the batch:

- ``questions``: fan-out rows that asked both;
- ``both_answered``: those both answered (failed answers, REQUIRED failures included, have no
  sources to compare);
- ``mean_domain_jaccard`` / ``mean_url_jaccard``: the mean of the per-question figures over the
  questions both answered where at least one of the two cites something (``domain_questions`` /
  ``url_questions`` of them; two answers citing nothing have no overlap to speak of);
- ``domain_set_jaccard``: the Jaccard overlap of all the domains each cited over the questions
  both answered (``domains`` per provider, ``shared_domains``): how far their sources overlap as
  a whole, whichever question each domain came up in.

The per-question figures and domain sets are the aggregate's: a redirect link whose true domain
is unknown is in no domain set, and joins another provider's source by domain only as the
aggregate says (``router.aggregate``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from als.fanout_rows import fanout_providers

__all__ = ["PairOverlap", "ProviderOverlap"]


@dataclass
class PairOverlap:
    """The overlap figures of two providers over a batch (see the module)."""

    providers: tuple[str, str]
    questions: int = 0
    both_answered: int = 0
    domain_jaccards: list[float] = field(default_factory=list)
    url_jaccards: list[float] = field(default_factory=list)
    domains: tuple[set[str], set[str]] = field(default_factory=lambda: (set(), set()))

    @property
    def mean_domain_jaccard(self) -> float | None:
        return _mean(self.domain_jaccards)

    @property
    def mean_url_jaccard(self) -> float | None:
        return _mean(self.url_jaccards)

    @property
    def shared_domains(self) -> int:
        return len(self.domains[0] & self.domains[1])

    @property
    def domain_set_jaccard(self) -> float | None:
        union = self.domains[0] | self.domains[1]
        return self.shared_domains / len(union) if union else None

    def to_dict(self) -> dict[str, Any]:
        left, right = self.providers
        return {
            "providers": list(self.providers),
            "questions": self.questions,
            "both_answered": self.both_answered,
            "mean_domain_jaccard": _rounded(self.mean_domain_jaccard),
            "domain_questions": len(self.domain_jaccards),
            "mean_url_jaccard": _rounded(self.mean_url_jaccard),
            "url_questions": len(self.url_jaccards),
            "domain_set_jaccard": _rounded(self.domain_set_jaccard),
            "domains": {left: len(self.domains[0]), right: len(self.domains[1])},
            "shared_domains": self.shared_domains,
        }


@dataclass
class ProviderOverlap:
    """Overlap figures per pair of providers, added to row by row (:meth:`add`)."""

    fanout_rows: int = 0
    asked: dict[str, int] = field(default_factory=dict)
    answered: dict[str, int] = field(default_factory=dict)
    pairs: dict[tuple[str, str], PairOverlap] = field(default_factory=dict)

    @property
    def providers(self) -> list[str]:
        """Every provider asked in a fan-out row, by name."""
        return sorted(self.asked)

    def add(self, row: object) -> None:
        """Count one batch output row; rows that are not fan-out rows are passed over."""
        providers = fanout_providers(row)
        if providers is None:
            return
        assert isinstance(row, Mapping)  # fanout_providers found a mapping
        self.fanout_rows += 1
        aggregate = _mapping(_mapping(row.get("fanout")).get("aggregate"))
        asked = sorted(name for name in providers if isinstance(name, str))
        answered = {name for name in _names(aggregate.get("providers")) if name in asked}
        for name in asked:
            self.asked[name] = self.asked.get(name, 0) + 1
            self.answered[name] = self.answered.get(name, 0) + (name in answered)
        agreement = _agreement_by_pair(aggregate.get("agreement"))
        cited = _mapping(aggregate.get("cited_domains"))
        for pair in combinations(asked, 2):
            overlap = self.pairs.get(pair)
            if overlap is None:
                overlap = self.pairs[pair] = PairOverlap(providers=pair)
            overlap.questions += 1
            if not set(pair) <= answered:
                continue
            overlap.both_answered += 1
            figures = agreement.get(frozenset(pair), {})
            _append_share(overlap.domain_jaccards, figures.get("domain_jaccard"))
            _append_share(overlap.url_jaccards, figures.get("url_jaccard"))
            for own, name in zip(overlap.domains, pair, strict=True):
                own.update(_names(cited.get(name)))

    def pair(self, left: str, right: str) -> PairOverlap | None:
        """The figures of two providers, in either order."""
        return self.pairs.get((left, right)) or self.pairs.get((right, left))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able view (``grounding-router als --overlap --json``)."""
        return {
            "fanout_rows": self.fanout_rows,
            "providers": {
                name: {"asked": self.asked[name], "answered": self.answered[name]}
                for name in self.providers
            },
            "pairs": [self.pairs[key].to_dict() for key in sorted(self.pairs)],
        }


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _names(value: object) -> list[str]:
    """The strings of a JSON list (anything else in it, or a non-list, is passed over)."""
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def _agreement_by_pair(value: object) -> dict[frozenset[str], Mapping[str, Any]]:
    found: dict[frozenset[str], Mapping[str, Any]] = {}
    for pair in value if isinstance(value, list) else []:
        if isinstance(pair, Mapping):
            names = _names(pair.get("providers"))
            if len(names) == 2:
                found[frozenset(names)] = pair
    return found


def _append_share(shares: list[float], value: object) -> None:
    """Keep a Jaccard figure the row gives; None (nothing cited) and odd values are left out."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if math.isfinite(value) and 0.0 <= value <= 1.0:
        shares.append(float(value))


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
