"""The grounding flags of ``route``, ``extract`` and ``batch``: verification and a policy.

``--verify`` attaches the claim-level report (:func:`router.verify`) and prints it; the policy
flags build a ``GroundingPolicy`` that the router enforces (REQUIRED: a broken rule fails the
call; AUTO: the violations are reported).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.grounding.report import GroundingReport

__all__ = ["add_policy_flags", "add_verify_flag", "grounding_block", "policy_from_args"]

# flag -> (GroundingPolicy field, type, help)
_POLICY_FLAGS: dict[str, tuple[str, type, str]] = {
    "--min-coverage": ("min_coverage", float, "share of the answer in cited claims, 0-1"),
    "--min-support": (
        "min_support_rate",
        float,
        "share of scorable cited claims their passage supports, 0-1",
    ),
    "--min-citations": ("min_citations", int, "fewest distinct sources cited"),
    "--min-domains": ("min_domains", int, "fewest distinct domains cited"),
    "--max-uncited": ("max_uncited_claims", int, "most claims that cite nothing"),
    "--support-threshold": (
        "support_threshold",
        float,
        "score from which a passage supports its claim (default 0.5)",
    ),
}


def add_verify_flag(parser: argparse.ArgumentParser) -> None:
    """``--verify``: attach and print the grounding report, claim by claim."""
    parser.add_argument(
        "--verify",
        action="store_true",
        help="check the answer claim by claim (coverage, support, cited domains) and print it",
    )


def add_policy_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of a grounding policy (all unset: no policy from flags)."""
    group = parser.add_argument_group(
        "grounding policy",
        "rules checked on each answer: in REQUIRED mode a broken rule fails the call (route: "
        "exit 3), otherwise it is reported",
    )
    for flag, (field, kind, text) in _POLICY_FLAGS.items():
        group.add_argument(flag, dest=f"policy_{field}", type=kind, metavar="N", help=text)
    group.add_argument(
        "--allow-domain",
        dest="policy_allowed_domains",
        action="append",
        metavar="DOMAIN",
        help="cite only this domain or its subdomains (repeatable)",
    )
    group.add_argument(
        "--block-domain",
        dest="policy_blocked_domains",
        action="append",
        metavar="DOMAIN",
        help="never cite this domain or its subdomains (repeatable)",
    )


def policy_from_args(args: argparse.Namespace) -> dict[str, Any] | None:
    """The policy the flags set, as a dict for the request, or None when no flag was given."""
    fields = [field for field, _, _ in _POLICY_FLAGS.values()]
    fields += ["allowed_domains", "blocked_domains"]
    policy = {
        field: getattr(args, f"policy_{field}")
        for field in fields
        if getattr(args, f"policy_{field}", None) is not None
    }
    return policy or None


def grounding_block(report: GroundingReport) -> list[tuple[str, str]]:
    """The report as lines for people, each with its rich style."""
    from router.text.terminal import terminal_safe

    support = "n/a" if report.support_rate is None else f"{report.support_rate:.0%}"
    lines = [
        (
            f"grounding: coverage {report.coverage:.0%} · support {support} ({report.scorer}) · "
            f"{report.supported} supported, {report.unsupported} unsupported, "
            f"{report.uncited} uncited, {report.unknown} unknown",
            "bold",
        ),
        (
            "cited domains: "
            + (", ".join(terminal_safe(d, single_line=True) for d in report.cited_domains) or "-"),
            "dim",
        ),
    ]
    for claim in report.claims:
        score = "" if claim.support is None else f" {claim.support:.2f}"
        text = terminal_safe(claim.text, single_line=True)
        text = text if len(text) <= 70 else text[:69] + "…"
        lines.append((f"  {claim.verdict:<11}{score:>5}  {text}", _STYLES[claim.verdict]))
    if report.policy is not None:
        if report.violations:
            lines.extend(
                (f"policy: {v.rule}: {terminal_safe(v.message, single_line=True)}", "red")
                for v in report.violations
            )
        else:
            lines.append(("policy: every rule met", "green"))
    return lines


_STYLES = {"supported": "green", "unsupported": "red", "uncited": "yellow", "unknown": "dim"}
