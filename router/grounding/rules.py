"""The rules of a grounding policy, checked on a report: pure, offline.

Each rule the report breaks gives one ``Violation``, in the order ``GroundingPolicy`` declares
them. Domain rules read the cited sources' registrable ``source_domain`` and their URL's host:
a listed domain covers its subdomains, label by label (``bbc.co.uk`` covers ``news.bbc.co.uk``,
not ``notbbc.co.uk``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from router.grounding.report import GroundingPolicy, GroundingReport, Violation

if TYPE_CHECKING:
    from router.types import Citation

__all__ = ["domain_matches", "policy_violations"]


def domain_matches(host: str, listed: str) -> bool:
    """True when ``host`` is ``listed`` or one of its subdomains (labels compared, not text)."""
    host = host.lower().rstrip(".")
    return bool(host) and (host == listed or host.endswith("." + listed))


def _listed(citation: Citation, host: str, domains: Sequence[str]) -> bool:
    return any(
        domain_matches(citation["source_domain"], d) or domain_matches(host, d) for d in domains
    )


def policy_violations(
    report: GroundingReport,
    policy: GroundingPolicy,
    sources: Sequence[Citation],
    hosts: Sequence[str],
) -> list[Violation]:
    """The rules of ``policy`` that ``report`` breaks; ``sources`` are the cited citations and
    ``hosts`` their URLs' hosts ("" when none)."""
    found: list[Violation] = []
    if policy.min_coverage is not None and report.coverage < policy.min_coverage:
        found.append(
            Violation(
                rule="min_coverage",
                message=f"{report.coverage:.0%} of the answer is cited, "
                f"the policy asks for {policy.min_coverage:.0%}",
                actual=round(report.coverage, 4),
                limit=policy.min_coverage,
            )
        )
    if policy.min_support_rate is not None:
        rate = report.support_rate
        if rate is None or rate < policy.min_support_rate:
            said = "no cited claim has a passage to compare with" if rate is None else f"{rate:.0%}"
            found.append(
                Violation(
                    rule="min_support_rate",
                    message=f"support rate {said}, the policy asks for "
                    f"{policy.min_support_rate:.0%}",
                    actual=round(rate or 0.0, 4),
                    limit=policy.min_support_rate,
                )
            )
    if policy.min_citations is not None and report.citations_cited < policy.min_citations:
        found.append(
            Violation(
                rule="min_citations",
                message=f"{report.citations_cited} sources cited, "
                f"the policy asks for {policy.min_citations}",
                actual=report.citations_cited,
                limit=policy.min_citations,
            )
        )
    if policy.min_domains is not None and len(report.cited_domains) < policy.min_domains:
        found.append(
            Violation(
                rule="min_domains",
                message=f"{len(report.cited_domains)} distinct domains cited, "
                f"the policy asks for {policy.min_domains}",
                actual=len(report.cited_domains),
                limit=policy.min_domains,
            )
        )
    if policy.allowed_domains is not None:
        outside = sorted(
            {
                citation["source_domain"]
                for citation, host in zip(sources, hosts, strict=True)
                if not _listed(citation, host, policy.allowed_domains)
            }
        )
        if outside:
            found.append(
                Violation(
                    rule="allowed_domains",
                    message=f"cites domains outside the allowed ones: {', '.join(outside)}",
                    actual=outside,
                    limit=policy.allowed_domains,
                )
            )
    if policy.blocked_domains is not None:
        blocked = sorted(
            {
                citation["source_domain"]
                for citation, host in zip(sources, hosts, strict=True)
                if _listed(citation, host, policy.blocked_domains)
            }
        )
        if blocked:
            found.append(
                Violation(
                    rule="blocked_domains",
                    message=f"cites blocked domains: {', '.join(blocked)}",
                    actual=blocked,
                    limit=policy.blocked_domains,
                )
            )
    if policy.max_uncited_claims is not None and report.uncited > policy.max_uncited_claims:
        found.append(
            Violation(
                rule="max_uncited_claims",
                message=f"{report.uncited} claims cite nothing, "
                f"the policy allows {policy.max_uncited_claims}",
                actual=report.uncited,
                limit=policy.max_uncited_claims,
            )
        )
    return found
