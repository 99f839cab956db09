"""Registrable domains and public suffixes, offline, from tldextract's bundled Public Suffix List.

One rule for private suffixes: only the ICANN section of the Public Suffix List counts
(``include_psl_private_domains=False``). Hosting platforms whose customers get subdomains are
therefore counted as the platform: ``user.github.io`` gives ``github.io``, ``myapp.vercel.app``
gives ``vercel.app``, ``name.blogspot.com`` gives ``blogspot.com``. ALS counts the operator of the
site, and the rule does not shift when a platform joins the private section of the list.

The extractor is built once, lazily, with no suffix-list download and no disk cache
(``TLDExtract(suffix_list_urls=(), cache_dir=None)``): nothing here opens a socket. An IP
address, a bare host (``localhost``) or a host under an unknown suffix gives the host itself.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from router.citations.hosts import canonical_host, host_of

if TYPE_CHECKING:
    from tldextract import TLDExtract

__all__ = [
    "HostParts",
    "domain_name_host",
    "domain_of_name",
    "host_parts",
    "load_suffix_list",
    "looks_like_domain",
    "public_suffix",
    "registrable_domain",
    "split_host",
]

_CACHE_SIZE = 65_536

# What a domain written as text looks like: dot-separated labels of letters, digits and inner
# hyphens, at most 63 characters each, and no all-digit top label (that would be an IP address).
_DOMAIN_TEXT = re.compile(
    r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z0-9-]{0,61}[a-z][a-z0-9-]{0,61})\Z"
)


_ANY_SPACE = re.compile(r"\s")


class HostParts(NamedTuple):
    """A canonical host split at its public suffix."""

    registrable: str
    """Registrable domain, or the host itself when it has none."""
    label: str
    """The label left of the public suffix ("" for an IP, a bare host or a suffix itself)."""
    suffix: str | None
    """The public suffix, or None for an IP, a bare host or an unknown suffix."""


@lru_cache(maxsize=1)
def _extractor() -> TLDExtract:
    # Imported here: tldextract pulls in requests, which `import router` must not pay for.
    from tldextract import TLDExtract

    extractor = TLDExtract(suffix_list_urls=(), cache_dir=None, include_psl_private_domains=False)
    # tldextract reads its bundled list on the first lookup, not when built: one lookup now, so
    # whoever builds the extractor (``load_suffix_list``) pays for the list, not a later call.
    extractor.extract_str("example.com")
    return extractor


def load_suffix_list() -> None:
    """Import tldextract and read the suffix list now, unless done already (about 0.1 s once).

    The router calls this when it creates an adapter, outside any call's deadline: otherwise the
    first citation of the process would pay for it within its call's ``timeout_s``.
    """
    _extractor()


def split_host(host: str) -> HostParts:
    """Split a canonical host (as ``canonical_host`` gives it) at its public suffix.

    Uncached: ``host_parts`` is the cached form. A canonical host is already a bare host, so
    this walks tldextract's suffix trie on its labels directly; ``extract_str`` would first
    read it as a URL (scheme, user info, port, path) and build a result of five fields, which
    cost about as much as the lookup itself. What it gives is what ``extract_str`` gives for
    every host (tests/router/citations/test_domains.py compares the two).
    """
    if ":" in host:  # IPv6
        return HostParts(host, "", None)
    ascii_host = host.isascii()
    if host.endswith(".") or (not ascii_host and _ODD_DOTS.search(host) is not None):
        return _split_by_extract_str(host)
    labels = host.split(".")
    if ascii_host and "xn--" not in host and host.islower():
        # The common case: every label is already what tldextract's lookup compares (it
        # lowercases each label and decodes punycode ones), so the walk needs no call per label.
        index = _suffix_start(labels, _SUFFIX_ROOT or _suffix_root())
    else:
        found = _suffix_trie().suffix_index(labels, include_psl_private_domains=False)
        index = None if found is None else found[0][0]
    if index is None:  # an IPv4 address, a bare host or an unknown suffix
        return HostParts(host, "", None)
    suffix = ".".join(labels[index:])
    domain = labels[index - 1] if index > 0 else ""
    if not domain:  # the host is a public suffix itself ("co.uk")
        return HostParts(host, "", suffix)
    # tuple.__new__ skips the NamedTuple's Python-level __new__: once per new host.
    return tuple.__new__(HostParts, (f"{domain}.{suffix}", domain, suffix))


def _suffix_start(labels: list[str], root: Any) -> int | None:
    """The index of the first label of the public suffix, as tldextract's ``suffix_index``
    gives it for labels that need no lowercasing or punycode decoding; None when none is known.

    The same walk from the last label down the trie of ICANN suffixes: the deepest node that
    ends a rule gives the suffix, and a wildcard rule (``*.ck``) takes one label more unless an
    exception (``!www.ck``) names it.
    """
    matches = root.matches
    position = count = len(labels)
    suffix = count
    while position:
        label = labels[position - 1]
        child = matches.get(label)
        if child is None:
            if "*" in matches:
                return position if "!" + label in matches else position - 1
            break
        position -= 1
        if child.end:
            suffix = position
        matches = child.matches
    return None if suffix == count else suffix


# Dots other than "." that tldextract reads as label separators; hosts with them (or a root
# label's trailing dot) take extract_str's own path, so its rules for them stay the rule here.
_ODD_DOTS = re.compile("[\u3002\uff0e\uff61]")


def _split_by_extract_str(host: str) -> HostParts:
    result = _extractor().extract_str(host)
    if result.ipv4 or not result.suffix:
        return HostParts(host, "", None)
    if not result.domain:
        return HostParts(host, "", result.suffix)
    return HostParts(f"{result.domain}.{result.suffix}", result.domain, result.suffix)


@lru_cache(maxsize=1)
def _suffix_trie() -> Any:
    """tldextract's suffix lookup for the extractor above (its list read once)."""
    return _extractor()._get_tld_extractor()


_SUFFIX_ROOT: Any = None


def _suffix_root() -> Any:
    """The root of that lookup's trie of ICANN suffixes (private ones left out), kept in a
    module global once read: it is asked for on every new host."""
    global _SUFFIX_ROOT  # noqa: PLW0603 - a one-time load, like the extractor's own cache
    _SUFFIX_ROOT = _suffix_trie().tlds_excl_private_trie
    return _SUFFIX_ROOT


# Cached by host: hosts repeat across the citations of one reply and across replies, and the
# suffix-list lookup is most of the cost of a new one.
host_parts = lru_cache(maxsize=_CACHE_SIZE)(split_host)


def registrable_domain(url_or_host: str) -> str:
    """The registrable domain of a URL or host: ``https://news.bbc.co.uk/x`` gives ``bbc.co.uk``.

    Lowercase and IDNA (``bücher.de`` gives ``xn--bcher-kva.de``); an IP address or a bare host
    gives the host. Returns "" only when no usable host can be read at all.
    """
    if not isinstance(url_or_host, str):
        return ""
    host = host_of(url_or_host)
    return host_parts(host).registrable if host else ""


def public_suffix(url_or_host: str) -> str | None:
    """The ICANN public suffix of a URL or host (``co.uk``, ``de``, ``com``), else None.

    None for IP addresses, bare hosts and hosts under a suffix the list does not know.
    """
    if not isinstance(url_or_host, str):
        return None
    host = host_of(url_or_host)
    return host_parts(host).suffix if host else None


def looks_like_domain(text: str | None) -> bool:
    """Whether a text is a domain name under a known public suffix, and nothing else.

    True for "wikipedia.org", "bbc.co.uk", "www.dev.to"; False for titles such as "Weather
    information for Paris" or "7 de mayo de 2026", for IP addresses, URLs and bare suffixes.
    """
    return bool(domain_of_name(text))


def domain_of_name(text: object) -> str:
    """The registrable domain of a text that ``looks_like_domain``, else "".

    What ``registrable_domain(text)`` gives for such a text, from one reading of it.
    """
    host = domain_name_host(text)
    if host is None:
        return ""
    parts = host_parts(host)
    return parts.registrable if parts.label and parts.suffix is not None else ""


def domain_name_host(text: object) -> str | None:
    """The canonical host a text names when it is written like a domain name, else None.

    The text ``looks_like_domain`` when, besides, the host has a label under a known public
    suffix (see ``host_parts``).
    """
    if not isinstance(text, str):
        return None
    candidate = text.strip()
    # Cheap refusals first: page titles are phrases, and only hosts should reach the host cache.
    if len(candidate) > 254 or "." not in candidate or _ANY_SPACE.search(candidate):
        return None
    host = canonical_host(candidate)
    return host if host is not None and _DOMAIN_TEXT.match(host) else None
