"""Host and authority canonicalisation shared by ``urls`` and ``domains``.

One place decides what a usable host is: lowercase, IDNA (UTS 46, IDNA 2008) ASCII form, no
trailing dot, IPv6 literals compressed. Results are cached by the exact input string: hosts
repeat across every citation of a batch, and the work is pure.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache

import idna

__all__ = [
    "DEFAULT_PORTS",
    "authority_and_host",
    "canonical_host",
    "host_of",
]

DEFAULT_PORTS = {"http": 80, "https": 443}

# Labels of letters, digits, '-' and '_' (underscores are not valid in IDNA but do occur in DNS
# names that serve web pages), separated by single dots.
_ASCII_HOST = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\Z")
_MAX_HOST_LENGTH = 253
# A host is at most 253 characters: an authority far longer is not a usable one.
_MAX_AUTHORITY_CHARS = 1_024
_CACHE_SIZE = 16_384


def _canonical_host(host: str) -> str | None:
    """The canonical form of a host, or None when it is not one.

    ``[::1]`` and ``::1`` both give ``::1`` (IPv6 without brackets); IPv4 in any spelling is kept
    as written (lowercased): only the SSRF guard interprets legacy forms such as ``0x7f.1``.
    """
    if host.startswith("[") and host.endswith("]"):
        return _ipv6(host[1:-1])
    if ":" in host:
        return _ipv6(host)
    name = host.rstrip(".") if host.endswith(".") else host
    if not name or len(name) > _MAX_HOST_LENGTH:
        return None
    name = name.lower() if name.isascii() else (_idna_ascii(name) or "")
    return name if _ASCII_HOST.match(name) else None


canonical_host = lru_cache(maxsize=_CACHE_SIZE)(_canonical_host)


def _ipv6(text: str) -> str | None:
    try:
        return ipaddress.IPv6Address(text).compressed
    except ValueError:
        return None


def _idna_ascii(name: str) -> str | None:
    try:
        return idna.encode(name, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        pass
    # IDNA 2008 refuses some names that browsers still reach (symbols such as '☃'); the
    # IDNA 2003 codec of the standard library is the fallback browsers also had.
    try:
        return name.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None


def authority_and_host(netloc: str, scheme: str) -> tuple[str, str] | None:
    """(``host[:port]``, the canonical host) of a URL's netloc, or None when unusable.

    Credentials are dropped and the default port removed; IPv6 hosts are bracketed in the
    authority, bare in the host. A backslash anywhere in the authority is refused: browsers read
    it as a path separator, so ``https://evil.example\\@good.example`` would otherwise name a
    different host here than in a browser. An authority longer than any usable one is refused
    before the cache sees it (a cache entry keeps its key alive).
    """
    if len(netloc) > _MAX_AUTHORITY_CHARS:
        return None
    return _authority_and_host(netloc, scheme)


@lru_cache(maxsize=_CACHE_SIZE)
def _authority_and_host(netloc: str, scheme: str) -> tuple[str, str] | None:
    if "\\" in netloc:
        return None
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            return None
        raw_host, rest = hostport[: close + 1], hostport[close + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:]
    else:
        raw_host, _, port_text = hostport.partition(":")
    host = _canonical_host(raw_host)  # this cache, keyed by netloc, is the only one needed
    if host is None:
        return None
    authority = f"[{host}]" if ":" in host else host
    if not port_text:
        return authority, host
    if not port_text.isascii() or not port_text.isdigit() or int(port_text) > 65_535:
        return None
    port = int(port_text)
    return (authority if DEFAULT_PORTS.get(scheme) == port else f"{authority}:{port}"), host


def host_of(url_or_host: str) -> str | None:
    """The canonical host of a URL (any scheme) or of a bare ``host[:port]``, else None."""
    text = url_or_host.strip()
    scheme_end = text.find("://")
    if scheme_end >= 0:
        text = text[scheme_end + 3 :]
    for separator in "/?#":
        cut = text.find(separator)
        if cut >= 0:
            text = text[:cut]
    text = text.rpartition("@")[2]
    if text.count(":") > 1 and not text.startswith("["):
        text = f"[{text}]"  # a bare IPv6 address
    found = authority_and_host(text, "")
    return found[1] if found is not None else None
