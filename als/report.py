"""The ALS report: where a batch's grounded answers get their sources, per group of requests.

:func:`build_report` reads a batch output file (``grounding-router batch -o OUT.jsonl``) line by
line, never whole, and groups its rows by vendor, model and ``user_location.country`` (or any of
those keys). Per group it counts answered rows, citations, distinct domains, citations per public
suffix (``co.uk`` and ``gov.uk`` apart, more telling than the bare TLD ``uk`` that
``extract_tld_counts`` counts by default) and per registrable domain, the redirect-only
citations (apart: their true source is unknown), the share on the requester's own country-code
TLD, and the failed rows by error type.
Citations of documents the requests supplied (``document:<label>``) are counted apart, per
label, and are in none of the web counts and shares (``citations`` counts web sources only).

Shares and what they are shares of:

- TLD shares and the own-ccTLD share are over the citations with a known source and a public
  suffix (``tld_citations``); the own-ccTLD share only counts responses whose request named a
  country with a delegated ccTLD, each against its own country, so it stays meaningful when
  countries are not a group key.
- Domain shares are over the citations with a known source (``domain_citations``).
- The redirector share is over all citations of the group.

Each group keeps the claim-level coverage of the answers that carry a grounding report (a
policy applied, or verification was asked for: ``response.grounding.coverage``, and the
report of a row that a REQUIRED policy rejected, ``error.coverage``), counted by whole
percent: its median and the number of reports, so coverage reads by vendor.

Each group also keeps what its answers cost per cited source (:mod:`als.cost`), reported on
request (``to_dict(cost=True)``, ``grounding-router als --cost-per-source``).

A fan-out row (one question sent to several providers) counts as one row per provider it asked,
each under its own vendor (:mod:`als.fanout_rows`); the report also keeps how far the providers
of those rows cite the same sources (:mod:`als.overlap`, ``grounding-router als --overlap``).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from als.als_ambient_utils import (
    cctld_for_country,
    country_tlds,
    counts_under_tlds,
    extract_document_counts,
    extract_domain_counts,
    extract_redirector_counts,
    extract_tld_counts,
    split_document_citations,
    split_redirect_citations,
)
from als.cost import SourceCost
from als.fanout_rows import provider_rows
from als.overlap import ProviderOverlap
from router.logging import get_logger
from router.schema import check_schema_version
from router.text.jsonl import UnreadableLineError, loads, read_lines

__all__ = ["DEFAULT_GROUP_BY", "GROUP_KEYS", "ALSReport", "GroupReport", "build_report"]

GROUP_KEYS: tuple[str, ...] = ("vendor", "model", "country")
DEFAULT_GROUP_BY = GROUP_KEYS

log = get_logger(__name__)

GroupKey = tuple[tuple[str, str | None], ...]


@dataclass
class GroupReport:
    """Counts for one group of rows; ``key`` pairs each group-by name with its value."""

    key: GroupKey
    responses: int = 0
    citations: int = 0
    redirector_citations: int = 0
    tld_counts: Counter[str] = field(default_factory=Counter)
    domain_counts: Counter[str] = field(default_factory=Counter)
    document_counts: Counter[str] = field(default_factory=Counter)
    redirector_domain_counts: Counter[str] = field(default_factory=Counter)
    own_cctlds: set[str] = field(default_factory=set)
    """The ASCII ccTLDs of the countries the group's answered requests named."""
    own_cctld_counts: Counter[str] = field(default_factory=Counter)
    """Citations on the requester's own ccTLDs (IDN ones too), per suffix (``co.uk``, ``uk``)."""
    own_cctld_base: int = 0
    """TLD-counted citations of the responses whose country has a ccTLD (the share's base)."""
    failures: Counter[str] = field(default_factory=Counter)
    """Failed rows by error type (``GroundingRequiredFailedError``, ``ProviderTransientError``)."""
    required_failure_reasons: Counter[str] = field(default_factory=Counter)
    fallback_reasons: Counter[str] = field(default_factory=Counter)
    """Moves to the next vendor of a request with fallbacks, by the reason the one before failed."""
    cost: SourceCost = field(default_factory=SourceCost)
    """What the answers cost, spread over the sources they cite (:mod:`als.cost`)."""
    coverage_percents: Counter[int] = field(default_factory=Counter)
    """Grounding reports by coverage, in whole percents (bounded: 101 keys at most)."""

    @property
    def values(self) -> dict[str, str | None]:
        """The group's key as a dict (``{"vendor": "openai", "country": "DE"}``)."""
        return dict(self.key)

    def label(self, separator: str = " · ") -> str:
        """The key for people: ``openai · gpt-5 · DE``, ``openai · gpt-5 · no country``."""
        if not self.key:
            return "all rows"
        return separator.join(value or f"no {name}" for name, value in self.key)

    @property
    def failed(self) -> int:
        return sum(self.failures.values())

    @property
    def tld_citations(self) -> int:
        """Citations with a known source and a public suffix: the base of the TLD shares."""
        return sum(self.tld_counts.values())

    @property
    def domain_citations(self) -> int:
        """Citations with a known source: the base of the domain shares."""
        return sum(self.domain_counts.values())

    @property
    def distinct_domains(self) -> int:
        return len(self.domain_counts)

    @property
    def own_cctld_citations(self) -> int:
        return sum(self.own_cctld_counts.values())

    @property
    def foreign_tld_counts(self) -> Counter[str]:
        """The TLD counts without the citations on the requester's own ccTLD."""
        return self.tld_counts - self.own_cctld_counts

    @property
    def redirector_share(self) -> float | None:
        return _share(self.redirector_citations, self.citations)

    @property
    def own_cctld_share(self) -> float | None:
        return _share(self.own_cctld_citations, self.own_cctld_base)

    def top_tlds(self, limit: int | None = None) -> list[tuple[str, int, float]]:
        """``(suffix, citations, share)``, most cited first, ties by name."""
        return _top(self.tld_counts, self.tld_citations, limit)

    def top_domains(self, limit: int | None = None) -> list[tuple[str, int, float]]:
        """``(domain, citations, share)``, most cited first, ties by name."""
        return _top(self.domain_counts, self.domain_citations, limit)

    @property
    def grounding_reports(self) -> int:
        return sum(self.coverage_percents.values())

    def coverage_quantile(self, q: float) -> float | None:
        """The coverage at quantile ``q`` of the group's grounding reports (None: no report)."""
        total = self.grounding_reports
        if not total:
            return None
        rank = round(q * (total - 1))  # the nearest rank, as the batch summary takes it
        seen = 0
        for percent in sorted(self.coverage_percents):
            seen += self.coverage_percents[percent]
            if seen > rank:
                return percent / 100
        return 1.0

    def to_dict(self, *, top: int | None = 10, cost: bool = False) -> dict[str, Any]:
        """A JSON-able view; ``top`` limits the TLD and domain lists (None: all of them).

        ``cost`` adds the cost per cited source (``--cost-per-source``).
        """
        extra = {"cost": self.cost.to_dict(top=top)} if cost else {}
        return {
            "key": self.values,
            "responses": self.responses,
            "citations": self.citations,
            "citations_per_response": _ratio(self.citations, self.responses),
            "distinct_domains": self.distinct_domains,
            "tld_citations": self.tld_citations,
            "tld_level": "suffix",
            "top_tlds": [
                {"tld": name, "citations": count, "share": round(share, 4)}
                for name, count, share in self.top_tlds(top)
            ],
            "top_domains": [
                {"domain": name, "citations": count, "share": round(share, 4)}
                for name, count, share in self.top_domains(top)
            ],
            "own_cctld": {
                "tlds": sorted(self.own_cctlds),
                "citations": self.own_cctld_citations,
                "of": self.own_cctld_base,
                "share": _rounded(self.own_cctld_share),
                "suffixes": dict(_ranked(self.own_cctld_counts)),
            },
            "documents": {
                "citations": sum(self.document_counts.values()),
                "labels": dict(_ranked(self.document_counts)),
            },
            "redirector": {
                "citations": self.redirector_citations,
                "share": _rounded(self.redirector_share),
                "domains": dict(_ranked(self.redirector_domain_counts)),
            },
            "grounding": {
                "reports": self.grounding_reports,
                "coverage": {
                    name: self.coverage_quantile(q)
                    for name, q in (("p10", 0.1), ("p50", 0.5), ("p90", 0.9))
                },
            },
            "fallbacks": {
                "taken": sum(self.fallback_reasons.values()),
                "by_reason": dict(_ranked(self.fallback_reasons)),
            },
            "failures": {
                "total": self.failed,
                "by_type": dict(_ranked(self.failures)),
                "required_reasons": dict(_ranked(self.required_failure_reasons)),
            },
            **extra,
        }

    def _add_coverage(self, coverage: object) -> None:
        if (
            isinstance(coverage, int | float)
            and not isinstance(coverage, bool)
            and 0.0 <= coverage <= 1.0
        ):
            self.coverage_percents[round(coverage * 100)] += 1

    def _add_fallbacks(self, attempts: object) -> None:
        # Every entry but the last is a vendor the request moved on from (router.fallback).
        if isinstance(attempts, list):
            for entry in attempts[:-1]:
                self.fallback_reasons[_text(_get(entry, "reason")) or "unknown"] += 1

    def _add_response(self, response: object, country: str | None) -> None:
        self._add_fallbacks(_get(_get(response, "metadata"), "attempts"))
        self.cost.add(response)
        self._add_coverage(_get(_get(response, "grounding"), "coverage"))
        citations = _get(response, "citations")
        web, documents = split_document_citations(citations if isinstance(citations, list) else [])
        self.document_counts.update(extract_document_counts(documents))
        true_source, redirector = split_redirect_citations(web)
        # Public suffixes, not bare TLDs: co.uk and gov.uk tell apart what uk would merge.
        tlds = extract_tld_counts(true_source, level="suffix")
        self.responses += 1
        self.citations += len(true_source) + len(redirector)
        self.redirector_citations += len(redirector)
        self.tld_counts.update(tlds)
        self.domain_counts.update(extract_domain_counts(true_source))
        self.redirector_domain_counts.update(extract_redirector_counts(redirector))
        cctld = cctld_for_country(country)
        if cctld is not None:
            self.own_cctlds.add(cctld)
            self.own_cctld_counts.update(counts_under_tlds(tlds, country_tlds(country)))
            self.own_cctld_base += sum(tlds.values())

    def _add_failure(self, error: object) -> None:
        error_type = _text(_get(error, "type")) or "unknown"
        self.failures[error_type] += 1
        self._add_fallbacks(_get(error, "fallback_attempts"))
        self._add_coverage(_get(error, "coverage"))
        reason = _text(_get(error, "reason"))
        if error_type == "GroundingRequiredFailedError" and reason:
            self.required_failure_reasons[reason] += 1


@dataclass
class ALSReport:
    """Per-group counts over one batch output, and how many rows it read."""

    by: tuple[str, ...]
    groups: list[GroupReport]
    answered: int = 0
    failed: int = 0
    unreadable_lines: int = 0
    """Lines that are not batch output rows (a partial last line of a killed run, stray text)."""
    overlap: ProviderOverlap = field(default_factory=ProviderOverlap)
    """How far the providers of the fan-out rows cite the same sources."""

    @property
    def rows(self) -> int:
        return self.answered + self.failed

    def to_dict(self, *, top: int | None = 10, cost: bool = False) -> dict[str, Any]:
        """A JSON-able view (``grounding-router als --json``; ``cost``: ``--cost-per-source``)."""
        return {
            "by": list(self.by),
            "rows": self.rows,
            "answered": self.answered,
            "failed": self.failed,
            "fanout_rows": self.overlap.fanout_rows,
            "unreadable_lines": self.unreadable_lines,
            "groups": [group.to_dict(top=top, cost=cost) for group in self.groups],
        }


def build_report(
    source: str | os.PathLike[str] | Iterable[Mapping[str, Any]],
    by: Sequence[str] = DEFAULT_GROUP_BY,
) -> ALSReport:
    """The ALS report over a batch output file or shard directory (read streaming), or rows.

    ``by`` names the group keys, any of ``vendor``, ``model`` and ``country`` in the order the
    groups should be labelled; an empty ``by`` puts every row in one group. A missing file raises
    ``FileNotFoundError``; lines that are not rows are counted in ``unreadable_lines``. A
    fan-out row counts once per provider it asked (``rows``, ``answered`` and ``failed`` count
    those), and adds to ``overlap``.
    """
    keys = _check_keys(by)
    rows: Iterable[object] = (
        _read_rows(Path(source)) if isinstance(source, str | os.PathLike) else source
    )
    name = str(source) if isinstance(source, str | os.PathLike) else "row"
    groups: dict[GroupKey, GroupReport] = {}
    report = ALSReport(by=keys, groups=[])
    for number, line in enumerate(rows, start=1):
        if isinstance(line, Mapping):  # a row of a newer major version is refused, clearly
            check_schema_version(line, f"{name} line {number}")
        report.overlap.add(line)
        for row in provider_rows(line):
            outcome = _outcome(row)
            if outcome is None or not isinstance(row, Mapping):
                report.unreadable_lines += 1
                continue
            key = tuple((name, _group_value(row, name)) for name in keys)
            group = groups.get(key)
            if group is None:
                group = groups[key] = GroupReport(key=key)
            if outcome:
                report.answered += 1
                group._add_response(row["response"], _group_value(row, "country"))
            else:
                report.failed += 1
                group._add_failure(row.get("error"))
    report.groups = sorted(groups.values(), key=_group_order)
    log.info(
        "als_report_built",
        rows=report.rows,
        answered=report.answered,
        failed=report.failed,
        fanout_rows=report.overlap.fanout_rows,
        groups=len(report.groups),
        unreadable_lines=report.unreadable_lines,
    )
    return report


def _check_keys(by: Sequence[str]) -> tuple[str, ...]:
    if isinstance(by, str):
        by = [by]
    keys = tuple(by)
    unknown = [key for key in keys if key not in GROUP_KEYS]
    if unknown:
        raise ValueError(
            f"unknown group key {unknown[0]!r}; group by any of {', '.join(GROUP_KEYS)}"
        )
    if len(set(keys)) != len(keys):
        raise ValueError(f"group keys repeat: {', '.join(keys)}")
    return keys


def _read_rows(path: Path) -> Iterator[object]:
    """Each line parsed, or None where a line is not JSON; one line in memory.

    ``path`` is a batch output file, or a directory of shards (``batch --engine ray``), whose
    ``*.jsonl`` files are read in name order.
    """
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    for file in files:
        with file.open("rb") as handle:
            for line in read_lines(handle):
                if line.blank:
                    continue
                try:
                    yield loads(line.data)
                except UnreadableLineError:
                    log.debug("als_line_unreadable", file=file.name, line=line.number)
                    yield None


def _outcome(row: object) -> bool | None:
    """True for an answered row, False for a failed one, None for anything else."""
    if not isinstance(row, Mapping):
        return None
    ok = row.get("ok")
    if ok is True:
        return True if isinstance(row.get("response"), Mapping) else None
    if ok is False:
        return False
    return None


def _group_value(row: Mapping[str, Any], name: str) -> str | None:
    """The row's vendor, model or country; from the response, else the request or the error.

    The response first: a request with fallbacks is answered by the vendor that gave the answer.
    """
    request = row.get("request")
    if name == "country":
        return _text(_get(_get(request, "user_location"), "country"), upper=True)
    for part in (row.get("response"), request, row.get("error")):
        value = _text(_get(part, name))
        if value is not None:
            return value
    return None


def _get(container: object, name: str) -> Any:
    return container.get(name) if isinstance(container, Mapping) else None


def _text(value: object, *, upper: bool = False) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().upper() if upper else value.strip()


def _group_order(group: GroupReport) -> tuple[tuple[bool, str], ...]:
    """Groups sorted by their values, a missing value last."""
    return tuple((value is None, value or "") for _, value in group.key)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _ranked(counts: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _top(counts: Counter[str], whole: int, limit: int | None) -> list[tuple[str, int, float]]:
    ranked = _ranked(counts)
    if limit is not None:
        ranked = ranked[:limit]
    return [(name, count, count / whole) for name, count in ranked]
