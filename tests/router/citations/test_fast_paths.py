"""The shortcuts of the citation build give exactly what the general computation gives."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from router.citations import (
    TRACKING_PARAMETERS,
    TRACKING_PREFIXES,
    dedupe_citations,
    make_citation,
    normalize_url,
    source_types,
    urls,
)
from router.citations.build import CitationCollector
from router.citations.domains import domain_of_name
from router.citations.source_types import (
    DOC_HOSTS,
    DOC_PATH_SEGMENTS,
    NEWS_HOSTS,
    NEWS_PATH,
    VIDEO_HOSTS,
    VIDEO_PATH,
    host_kinds,
)
from router.citations.tracking import SITE_TRACKING_PARAMETERS, tracking_part_matcher
from router.citations.urls import parse_url
from router.types import Span

_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# What decides between the one-scan and the general path: escapes of every kind, characters
# that need encoding, fragments, case, dot segments, tracking and empty parameters.
_URL_PIECES = [
    "/", "?", "#", "&", "=", "%", "%2", "%41", "%7e", "%7E", "%2e", "%2F", "%2f", "%40", "%C3%A9",
    "%zz", "%25", ".", "..", "/./", "/../", " ", "é", "\ud800", "\t", "a", "Z", "0", "-", "_",
    "~", "!", "$", "'", "(", "*", "+", ",", ";", ":", "@", "[", "]", "^", "|", "\"", "utm_x=1",
    "gclid=2", "UTM_Y", "q=a+b",
]  # fmt: skip
_HOSTS = ["a.com", "WWW.B.co.uk", "x.example:8080", "[::1]", "u:p@c.org", "bücher.de", ""]
_HEX = "0123456789ABCDEF"
# Mostly what the one-scan pattern accepts, with uppercase escapes of every byte: those of
# unreserved characters must still take the general path, which decodes them.
_plain_rest = st.lists(
    st.one_of(
        st.sampled_from(list("/?&=aZ0-._~!$'()*+,;:@")),
        st.builds("%{}{}".format, st.sampled_from(_HEX), st.sampled_from(_HEX)),
        # Each edge between escapes that stay and escapes of unreserved characters.
        st.sampled_from(["%2C", "%2D", "%2E", "%2F", "%30", "%39", "%3A", "%40", "%41", "%5A"]),
        st.sampled_from(["%5B", "%5E", "%5F", "%60", "%61", "%7A", "%7B", "%7E", "%7F"]),
    ),
    max_size=8,
).map("".join)
_urls = st.builds(
    lambda scheme, host, start, rest: f"{scheme}{host}{start}{rest}",
    st.sampled_from(["http://", "https://", "HTTP://", "hTTps://"]),
    st.sampled_from(_HOSTS),
    st.sampled_from(["/", "/", "/a/", "?", ""]),
    st.one_of(st.lists(st.sampled_from(_URL_PIECES), max_size=14).map("".join), _plain_rest),
)


@_SETTINGS
@given(_urls)
def test_one_scan_parse_matches_the_general_path(url: str) -> None:
    """A URL the one-scan pattern accepts parses as the general path parses it."""
    try:
        general = urls._parse(url, one_scan=False)
    except UnicodeError:
        general = None
    assert parse_url(url) == general


@_SETTINGS
@given(_urls)
def test_parse_url_is_normalize_url_with_parts(url: str) -> None:
    """parse_url's URL is normalize_url's, and its parts are read from that URL."""
    parsed = parse_url(url)
    assert (parsed.url if parsed else None) == normalize_url(url)
    if parsed is not None:
        split = urls.split_canonical_url(parsed.url)
        assert split is not None
        assert (split.host, split.path, split.query) == (parsed.host, parsed.path, parsed.query)


_names = st.one_of(
    st.sampled_from(sorted(TRACKING_PARAMETERS)),
    st.sampled_from([*TRACKING_PREFIXES, "utm", "utm_", "UTM_Source", "Gclid", "igsh", "igshid"]),
    st.sampled_from(["si", "SI", "feature", "pp", "kw"]),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz_GCLID", max_size=9),
)


@_SETTINGS
@given(
    _names,
    st.sampled_from(["", "=", "=1", "=a=b", "x=1"]),
    st.sampled_from(["example.com", "www.youtube.com", "youtu.be", "open.spotify.com"]),
)
def test_tracking_pattern_is_the_table_rule(name: str, rest: str, host: str) -> None:
    """A query part is dropped exactly when its lowercased name is a tracking one on its host."""
    part = name + rest
    key = part.partition("=")[0].lower()
    site = next((s for s in SITE_TRACKING_PARAMETERS if host == s or host.endswith(f".{s}")), "")
    tracking = (
        key.startswith(TRACKING_PREFIXES)
        or key in TRACKING_PARAMETERS
        or key in SITE_TRACKING_PARAMETERS.get(site, ())
    )
    assert (tracking_part_matcher(host)(part) is not None) is tracking


_WORDS = [*sorted(DOC_PATH_SEGMENTS), "news", "article", "stories", "live-updates", "watch"]
_paths = st.lists(
    st.one_of(
        st.sampled_from(_WORDS),
        st.sampled_from(["2025", "12", "5", "1999", "x", "Docs", "NEWS", "Watch", "", "a.pdf"]),
    ),
    max_size=6,
).map(lambda segments: "/" + "/".join(segments))


@_SETTINGS
@given(_paths)
def test_path_signal_finds_every_path_table_match(path: str) -> None:
    """Whenever a path table matches, the one-scan signal does too."""
    if VIDEO_PATH.match(path) or NEWS_PATH.search(path) or source_types._DOC_SEGMENT.search(path):
        assert source_types._ANY_PATH_SIGNAL.search(path.lower())


def _in_table(host: str, table: frozenset[str]) -> bool:
    labels = host.split(".")
    return any(".".join(labels[index:]) in table for index in range(len(labels)))


@_SETTINGS
@given(
    st.lists(
        st.sampled_from([*sorted(VIDEO_HOSTS | NEWS_HOSTS | DOC_HOSTS), "docs", "www", "x.y"]),
        min_size=1,
        max_size=3,
    ).map(".".join)
)
def test_host_kinds_walks_every_parent_domain(host: str) -> None:
    """A host is of a table's kind when it or a parent domain is in that table."""
    expected = (
        source_types.VIDEO_HOST * _in_table(host, VIDEO_HOSTS)
        | source_types.NEWS_HOST * _in_table(host, NEWS_HOSTS)
        | source_types.DOC_HOST
        * (_in_table(host, DOC_HOSTS) or host.partition(".")[0] in {"docs", "doc"})
    )
    assert host_kinds(host) == expected


_sources = st.fixed_dictionaries(
    {
        "url": st.one_of(
            st.none(),
            st.sampled_from(
                [
                    "https://www.bbc.co.uk/news/x?utm_source=a",
                    "http://bbc.co.uk/news/x#frag",
                    "https://example.com/a?b=2&a=1",
                    "https://example.com/a?a=1&b=2",
                    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC",
                    "https://www.google.com/url?q=https://example.org/p",
                    "not a url",
                ]
            ),
        ),
        "title": st.sampled_from([None, "", "BBC", "bbc.co.uk", "example.org", "A page"]),
        "snippet": st.sampled_from([None, "", "text", "x " * 150]),
        "rank": st.sampled_from([None, 0, 1, 2, 3, 7, True]),
        "cited": st.booleans(),
        "domain_hint": st.sampled_from([None, "example.net", "not a domain"]),
        "spans": st.lists(
            st.sampled_from([(0, 3, "abc"), (4, 9, "defgh"), (0, 3, "abc")]), max_size=3
        ),
        "raw": st.sampled_from([None, {}, {"type": "url"}, {"web": {"uri": "x", "n": 1.5}}]),
    }
)


@_SETTINGS
@given(st.lists(_sources, max_size=8), st.sampled_from(["openai", "vertex"]))
def test_collector_gives_what_make_and_dedupe_give(
    sources: list[dict[str, Any]], provider: Any
) -> None:
    """CitationCollector equals dedupe_citations over make_citation, raw copies included."""
    collector = CitationCollector(provider)
    built = []
    for source in sources:
        arguments = dict(source)
        arguments["spans"] = [Span(start=s, end=e, text=t) for s, e, t in source["spans"]]
        kept = collector.add(**arguments)
        citation = make_citation(provider=provider, **arguments)
        assert kept is (citation is not None)
        if citation is not None:
            built.append(citation)
    collected = collector.citations()
    assert collected == dedupe_citations(built)
    given_raws = {id(source["raw"]) for source in sources if source["raw"] is not None}
    assert all(id(citation["raw"]) not in given_raws for citation in collected)  # copies only


def test_domain_of_name_agrees_with_the_title_rule() -> None:
    """domain_of_name gives the registrable domain of names and nothing for phrases."""
    assert domain_of_name(" News.BBC.co.uk ") == "bbc.co.uk"
    assert domain_of_name("Weather information for Paris") == ""
    assert domain_of_name("co.uk") == ""
