"""Which IP addresses the redirect resolver may talk to or report: public unicast only.

The SSRF policy of ``RedirectResolver`` in one place. A host is read the way the system
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
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
    )


def is_public_address(address: IPAddress | str, *, allow_loopback: bool = False) -> bool:
    """Whether an address is public unicast: not private, loopback, link-local, unspecified,
    multicast, reserved or otherwise non-global, and embedding no such IPv4 address.

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
