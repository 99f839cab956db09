"""Compare the router's tracking parameters with a ClearURLs rule set.

ClearURLs (the browser extension's maintained rule set, ``data.min.json`` of its Rules
repository) removes query parameters by regular expression: global rules for every site and
rules per provider. This prints, for each global rule and each rule of the providers the router
has site parameters for, whether the router removes what it matches, keeps it on purpose (with
the reason from ``tracking_parameters.json``), or has no entry for it yet: review those.

    .venv/bin/python scripts/tracking_vs_clearurls.py data.min.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from router.citations.tracking import (
    KEPT_PARAMETERS,
    SITE_TRACKING_PARAMETERS,
    TRACKING_PARAMETERS,
    TRACKING_PREFIXES,
)

# A rule's optional "?" escape in front of the name: irrelevant once the query is split.
_QUESTION_MARK_ESCAPE = "(?:%3F)?"
# The ClearURLs providers that correspond to the router's site parameters.
_PROVIDERS = {"youtube": "youtube.com", "spotify": "spotify.com", "LinkedIn": "linkedin.com"}


def rules_to_compare(ruleset: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(where, rule, site or "") for the global rules and the providers with site parameters."""
    providers = ruleset.get("providers", {})
    for where, site in [("globalRules", ""), *_PROVIDERS.items()]:
        provider = providers.get(where, {})
        for key in ("rules", "referralMarketing"):
            for rule in provider.get(key, []):
                yield f"{where}.{key}", rule, site


def verdict(rule: str, site: str = "") -> str:
    """What the router does with the names ``rule`` matches: removed, kept (why) or missing."""
    text = rule.replace(_QUESTION_MARK_ESCAPE, "")
    pattern = re.compile(text, re.IGNORECASE)
    removed = set(TRACKING_PARAMETERS) | set(SITE_TRACKING_PARAMETERS.get(site, ()))
    removed |= {f"{prefix}x" for prefix in TRACKING_PREFIXES}
    if text.lower().startswith(TRACKING_PREFIXES) or any(map(pattern.fullmatch, removed)):
        return "removed"  # some (for a prefix rule: all) of the names it matches
    kept = sorted(name for name in KEPT_PARAMETERS if pattern.fullmatch(name))
    if kept:
        return f"kept ({', '.join(kept)})"
    return "MISSING"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset", type=Path, help="ClearURLs data.min.json")
    args = parser.parse_args(argv)
    ruleset = json.loads(args.ruleset.read_text(encoding="utf-8"))
    missing = 0
    for where, rule, site in rules_to_compare(ruleset):
        found = verdict(rule, site)
        missing += found == "MISSING"
        print(f"{where:32} {rule:48} {found}")
    print(f"{missing} rules without an entry", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
