"""Which IP addresses the redirect resolver may talk to or report: public unicast only.

The SSRF policy of ``RedirectResolver`` in one place. The rule allows, it does not deny: an
address passes only when it is globally routable unicast. For IPv6 that is the global unicast
block ``2000::/3`` and nothing else (so site-local ``fec0::/10``, unique-local, link-local,
NAT64 and every block yet to be assigned fail by default); then, for both families, the
standard library's ``is_global`` must hold, and the special-purpose blocks that older Python
releases still count as global fail by name (``192.0.0.0/24``, ``192.88.99.0/24``, the
``3fff::/20`` documentation block, ``2001::/23``). A host is read the way the system
resolver reads it, so the spellings browsers and ``getaddrinfo`` accept for IPv4 count as the
address they stand for: ``2130706433``, ``0x7f.1``, ``0177.0.0.1`` and ``127.1`` are all
127.0.0.1. An IPv6 address that embeds an IPv4 one (IPv4-mapped ``::ffff:a.b.c.d``,
IPv4-compatible ``::a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo) passes only if
the embedded address passes too.
"""

from __future__ import annotations

import ipaddress
import re
import socket

__all__ = ["IPAddress", "is_public_address", "parse_ip_literal"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# Up to four dot-separated parts, each decimal, octal (leading 0) or hex (0x): what inet_aton
# accepts, and so what getaddrinfo turns into an IPv4 address without asking DNS.
_LEGACY_IPV4 = re.compile(r"(?i)(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}\Z")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
# IANA special-purpose blocks that are not globally reachable but that the ``is_global`` of
# older Python releases (3.11 included) still reports as global.
_NOT_GLOBAL: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = (
    ipaddress.IPv4Network("192.0.0.0/24"),  # IETF protocol assignments (RFC 6890)
    ipaddress.IPv4Network("192.88.99.0/24"),  # deprecated 6to4 relay anycast (RFC 7526)
    ipaddress.IPv6Network("2001::/23"),  # IETF protocol assignments, Teredo included
    ipaddress.IPv6Network("2001:db8::/32"),  # documentation (RFC 3849)
    ipaddress.IPv6Network("3fff::/20"),  # documentation (RFC 9637)
)


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a host literally names, in any spelling the system resolver accepts, else None.

    ``[::1]``, ``::1``, ``fe80::1%eth0``, ``127.0.0.1``, ``127.1``, ``0x7f000001`` and
    ``2130706433`` are literals; ``example.com`` is not.
    """
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = text.removesuffix(".")
    if ":" in text:
        text = text.partition("%")[0]  # an IPv6 zone does not change which address it is
        try:
            return ipaddress.IPv6Address(text)
        except ValueError:
            return None
    try:
        return ipaddress.IPv4Address(text)
    except ValueError:
        pass
    if not _LEGACY_IPV4.match(text):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        return None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    embedded: list[ipaddress.IPv4Address] = []
    compatible = address in _IPV4_COMPATIBLE and int(address) > 1  # "::" and "::1" are not
    if compatible or address in _NAT64:
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFF_FFFF))
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)
    return embedded


def _passes(address: IPAddress, allow_loopback: bool) -> bool:
    if allow_loopback and address.is_loopback:
        return True
    return _globally_routable_unicast(address)


def _globally_routable_unicast(address: IPAddress) -> bool:
    """Allow-listed, not deny-listed: anything this cannot show to be public fails."""
    if isinstance(address, ipaddress.IPv6Address) and address not in _GLOBAL_UNICAST_V6:
        return False
    if not address.is_global or address.is_multicast:
        return False
    return not any(
        address.version == network.version and address in network for network in _NOT_GLOBAL
    )


def is_public_address(address: IPAddress | str, *, allow_loopback: bool = False) -> bool:
    """Whether an address is globally routable unicast, and embeds no IPv4 address that is not.

    ``allow_loopback`` exists for the resolver's own tests against a loopback server only.
    A string that is not an address literal is not public.
    """
    if isinstance(address, str):
        parsed = parse_ip_literal(address)
        if parsed is None:
            return False
        address = parsed
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if address.ipv4_mapped is not None:
            return _passes(embedded[0], allow_loopback)
        if embedded and not all(_passes(inner, allow_loopback) for inner in embedded):
            return False
    return _passes(address, allow_loopback)
