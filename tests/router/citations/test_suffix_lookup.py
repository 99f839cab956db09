"""``split_host`` walks tldextract's suffix trie itself; it splits every host as ``extract_str``
does: the hosts of every URL in the test data and the recordings, and a table of edge cases."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from router.citations.domains import _split_by_extract_str, split_host
from router.citations.hosts import host_of

DATA = Path(__file__).parents[2] / "data"
_URL = re.compile(r"https?://[^\s\"'<>\\]+")

EDGE_HOSTS = [
    "example.com",
    "news.bbc.co.uk",
    "co.uk",
    "uk",
    "localhost",
    "1.2.3.4",
    "999.1.1.1",
    "1.2.3",
    "10.0.0.1.example",
    "a..com",
    ".com",
    "example.com.",
    "user.github.io",
    "myapp.vercel.app",
    "www.ck",
    "foo.bar.ck",
    "bar.ck",
    "city.kawasaki.jp",
    "foo.city.kawasaki.jp",
    "xn--bcher-kva.de",
    "xn--80aswg.xn--p1ai",
    "sub.xn--80aswg.xn--p1ai",
    "xn--p1ai",
    "example.xn--invalid-",
    "host.unknownsuffix",
    "a.b.c.d.e.example.org",
    "example\u3002com",
    "example\uff0eco\uff0euk",
    "vertexaisearch.cloud.google.com",
]


def _hosts() -> Iterator[str]:
    seen: set[str] = set()
    for path in sorted(DATA.rglob("*.json")):
        for url in _URL.findall(path.read_text(encoding="utf-8", errors="replace")):
            host = host_of(url)
            if host is not None and host not in seen:
                seen.add(host)
                yield host


def test_the_data_holds_many_hosts() -> None:
    """The comparison below covers hundreds of real hosts, not a handful."""
    assert len(list(_hosts())) > 200


def test_every_host_of_the_data_splits_as_extract_str_splits_it() -> None:
    """For every host named in the test data and recordings, the two ways agree."""
    differ = {
        host: (split_host(host), _split_by_extract_str(host))
        for host in _hosts()
        if split_host(host) != _split_by_extract_str(host)
    }
    assert differ == {}


@pytest.mark.parametrize("host", EDGE_HOSTS)
def test_edge_hosts_split_as_extract_str_splits_them(host: str) -> None:
    """IPs, bare hosts, suffixes themselves, wildcard and exception rules, punycode, private
    suffixes, empty labels and other dots give what ``extract_str`` gives."""
    assert split_host(host) == _split_by_extract_str(host)


_LABELS = ["www", "news", "a", "b1", "co", "uk", "com", "jp", "kawasaki", "city", "ck", "bar"]
_LABELS += ["github", "io", "xn--p1ai", "xn--80aswg", "de", "gov", "k12", "ak", "us", "1", "255"]


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_LABELS), min_size=1, max_size=5))
def test_generated_hosts_split_as_extract_str_splits_them(labels: list[str]) -> None:
    """Hosts built from labels that hit suffix rules, wildcards, exceptions, punycode and IPs:
    the walk over plain lowercase labels and tldextract's own lookup agree with extract_str."""
    host = ".".join(labels)
    assert split_host(host) == _split_by_extract_str(host)
