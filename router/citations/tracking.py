"""Tracking query parameters: the data of ``tracking_parameters.json`` and the matcher built on it.

The list is data, not code, so it can be compared with maintained rule sets (ClearURLs) and
extended without touching the URL rules. Three kinds of entry: prefixes and exact names removed
on every host, names removed only on one site and its subdomains (``si`` on YouTube and
Spotify, where it is a share id; elsewhere a two-letter name can be anything), and names
deliberately kept, each with its reason (``ref``, ``source`` and ``id`` pick content).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from types import MappingProxyType

__all__ = [
    "KEPT_PARAMETERS",
    "SITE_TRACKING_PARAMETERS",
    "TRACKING_PARAMETERS",
    "TRACKING_PREFIXES",
    "tracking_part_matcher",
]

_DATA = json.loads(
    resources.files("router.citations")
    .joinpath("tracking_parameters.json")
    .read_text(encoding="utf-8")
)

TRACKING_PREFIXES: tuple[str, ...] = tuple(_DATA["prefixes"])
TRACKING_PARAMETERS: frozenset[str] = frozenset(_DATA["parameters"])
SITE_TRACKING_PARAMETERS: Mapping[str, frozenset[str]] = MappingProxyType(
    {site: frozenset(names) for site, names in _DATA["site_parameters"].items()}
)
"""Names removed only on a site (a registrable domain) and its subdomains."""
KEPT_PARAMETERS: frozenset[str] = frozenset(_DATA["kept"])
"""Names a maintained rule set removes and this one deliberately keeps (see the data's reasons)."""

PartMatcher = Callable[[str], "re.Match[str] | None"]


def _part_pattern(names: Iterable[str]) -> re.Pattern[str]:
    """Matches a ``name=value`` query part (or a bare ``name``) whose name is tracking."""
    return re.compile(
        "|".join(
            [*(re.escape(prefix) for prefix in TRACKING_PREFIXES)]
            + [rf"{re.escape(name)}(?:=|\Z)" for name in sorted(names)]
        ),
        re.IGNORECASE | re.ASCII,
    )


_EVERYWHERE = _part_pattern(TRACKING_PARAMETERS).match
_ON_SITE: dict[str, PartMatcher] = {
    site: _part_pattern(TRACKING_PARAMETERS | names).match
    for site, names in SITE_TRACKING_PARAMETERS.items()
}
_SUBDOMAIN_ENDINGS = tuple(f".{site}" for site in _ON_SITE)


def tracking_part_matcher(host: str) -> PartMatcher:
    """The ``match`` that tells a tracking query part on ``host`` (a canonical host)."""
    if host in _ON_SITE:
        return _ON_SITE[host]
    if host.endswith(_SUBDOMAIN_ENDINGS):
        for site, matcher in _ON_SITE.items():
            if host.endswith(f".{site}"):
                return matcher
    return _EVERYWHERE
