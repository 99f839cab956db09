"""The resolver's address policy: public unicast only, in every spelling of an address."""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import pytest

from router.citations.addresses import is_public_address, parse_ip_literal

ROWS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[2] / "data" / "redirects.json").read_text(encoding="utf-8")
)["is_public_address"]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_is_public_address(row: dict[str, Any]) -> None:
    """Only public unicast addresses pass, however they are spelled."""
    assert is_public_address(row["input"]) is row["expected"]


@pytest.mark.parametrize(
    ("host", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),
        ("fe80::1%25eth0", "fe80::1"),
        ("example.com", None),
        ("0x", None),
    ],
)
def test_parse_ip_literal_reads_hosts_as_the_system_resolver_does(
    host: str, address: str | None
) -> None:
    """Legacy IPv4 spellings and bracketed IPv6 are the addresses they stand for."""
    expected = ipaddress.ip_address(address) if address else None
    assert parse_ip_literal(host) == expected


def test_loopback_allowance_admits_loopback_only() -> None:
    """The test-only allowance admits loopback and nothing else that is not public."""
    assert is_public_address("127.0.0.1", allow_loopback=True)
    assert is_public_address("::1", allow_loopback=True)
    assert is_public_address("::ffff:127.0.0.1", allow_loopback=True)
    for address in ("10.0.0.1", "169.254.169.254", "0.0.0.0", "fe80::1", "224.0.0.1"):
        assert not is_public_address(address, allow_loopback=True)
