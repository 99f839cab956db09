"""What kind of source a URL is: "video", "doc", "news", "web" or "unknown", from data tables.

The tables below are the whole rule; the function only walks them, first match wins:

1. video: a video host, a video page path, or a video file;
2. doc: a document file (PDF, office formats), a document host, a documentation path;
3. news: a news host, or a news-shaped path (``/news/``, ``/article/``, a ``/2025/12/05/`` date);
4. web: any other http(s) URL;
5. unknown: no usable http(s) URL.

Hosts match themselves and their subdomains (``edition.cnn.com`` is ``cnn.com``). The title
only adds the signals search engines put in it: a ``[PDF]`` tag, a `` - YouTube`` suffix.
"""

from __future__ import annotations

import re

from router.citations.urls import parse_url, redirector_of
from router.types import SourceType

__all__ = [
    "DOC_EXTENSIONS",
    "DOC_HOST",
    "DOC_HOSTS",
    "DOC_PATH_SEGMENTS",
    "NEWS_HOST",
    "NEWS_HOSTS",
    "NEWS_PATH",
    "VIDEO_EXTENSIONS",
    "VIDEO_HOST",
    "VIDEO_HOSTS",
    "VIDEO_PATH",
    "classify_end_site",
    "classify_source_type",
    "host_kinds",
]

VIDEO_HOSTS: frozenset[str] = frozenset(
    {
        "youtube.com",
        "youtu.be",
        "youtube-nocookie.com",
        "vimeo.com",
        "dailymotion.com",
        "dai.ly",
        "twitch.tv",
        "tiktok.com",
        "rumble.com",
        "bilibili.com",
        "nicovideo.jp",
        "ted.com",
        "loom.com",
        "wistia.com",
        "vidyard.com",
        "streamable.com",
    }
)
# Video pages on hosts that also carry other things (news sites' video sections, Facebook).
VIDEO_PATH = re.compile(r"(?i)^/(?:videos?|watch|tv|embed|shorts|live)(?:/|$)")
VIDEO_EXTENSIONS: frozenset[str] = frozenset(
    {"mp4", "m4v", "mov", "webm", "mkv", "avi", "m3u8", "mpd", "flv", "wmv"}
)

DOC_EXTENSIONS: frozenset[str] = frozenset(
    {
        "pdf",
        "doc",
        "docx",
        "odt",
        "rtf",
        "ppt",
        "pptx",
        "odp",
        "xls",
        "xlsx",
        "ods",
        "csv",
        "epub",
        "ps",
        "tex",
    }
)
# Papers, preprints, standards and software documentation.
DOC_HOSTS: frozenset[str] = frozenset(
    {
        "arxiv.org",
        "doi.org",
        "ssrn.com",
        "researchgate.net",
        "semanticscholar.org",
        "scholar.google.com",
        "pmc.ncbi.nlm.nih.gov",
        "pubmed.ncbi.nlm.nih.gov",
        "jstor.org",
        "springer.com",
        "sciencedirect.com",
        "ieeexplore.ieee.org",
        "dl.acm.org",
        "openreview.net",
        "biorxiv.org",
        "medrxiv.org",
        "rfc-editor.org",
        "datatracker.ietf.org",
        "w3.org",
        "readthedocs.io",
        "readthedocs.org",
        "docs.python.org",
        "developer.mozilla.org",
        "learn.microsoft.com",
        "docs.google.com",
        "docs.rs",
        "pkg.go.dev",
    }
)
# A path segment that names documentation or a repository download ("/docs/", "/bitstream/").
DOC_PATH_SEGMENTS: frozenset[str] = frozenset(
    {
        "docs",
        "doc",
        "documentation",
        "manual",
        "handbook",
        "bitstream",
        "bitstreams",
        "api-reference",
    }
)
# A subdomain that names documentation ("docs.pydantic.dev").
_DOC_SUBDOMAINS = frozenset({"docs", "doc", "documentation", "devdocs"})

NEWS_HOSTS: frozenset[str] = frozenset(
    {
        "apnews.com",
        "reuters.com",
        "bbc.co.uk",
        "bbc.com",
        "cnn.com",
        "nytimes.com",
        "washingtonpost.com",
        "wsj.com",
        "ft.com",
        "bloomberg.com",
        "economist.com",
        "theguardian.com",
        "independent.co.uk",
        "telegraph.co.uk",
        "aljazeera.com",
        "euronews.com",
        "npr.org",
        "cbsnews.com",
        "nbcnews.com",
        "abcnews.go.com",
        "foxnews.com",
        "usatoday.com",
        "usnews.com",
        "politico.com",
        "axios.com",
        "cnbc.com",
        "marketwatch.com",
        "barrons.com",
        "forbes.com",
        "fortune.com",
        "businessinsider.com",
        "techcrunch.com",
        "theverge.com",
        "wired.com",
        "arstechnica.com",
        "engadget.com",
        "theinformation.com",
        "technologyreview.com",
        "coindesk.com",
        "straitstimes.com",
        "scmp.com",
        "timesofindia.indiatimes.com",
        "hindustantimes.com",
        "business-standard.com",
        "dutchnews.nl",
        "nltimes.nl",
        "nos.nl",
        "lemonde.fr",
        "spiegel.de",
        "zeit.de",
        "faz.net",
        "elpais.com",
        "corriere.it",
        "kyivpost.com",
        "democracynow.org",
        "news.google.com",
        "news.yahoo.com",
        "newsnow.com",
    }
)
# Searched in paths, which start with "/": a news segment anywhere, or a date.
NEWS_PATH = re.compile(
    r"(?i)/(?:news|article|articles|story|stories|live-updates|breaking-news|headlines)"
    r"(?:/|$)|/(?:19|20)\d{2}/[01]?\d/[0-3]?\d/"
)

_VIDEO_TITLE = re.compile("(?i)[-|\u2013\u2014]\\s*(?:youtube|vimeo)\\s*$")
_DOC_TITLE = re.compile(r"(?i)^\s*\[(?:pdf|doc|docx|ppt|pptx)\]")


VIDEO_HOST, NEWS_HOST, DOC_HOST = 1, 2, 4
# Each host of the tables with the bits of the tables it is in.
_TABLED_HOSTS: dict[str, int] = {}
for _table, _bit in ((VIDEO_HOSTS, VIDEO_HOST), (NEWS_HOSTS, NEWS_HOST), (DOC_HOSTS, DOC_HOST)):
    for _host in _table:
        _TABLED_HOSTS[_host] = _TABLED_HOSTS.get(_host, 0) | _bit
# A path segment of DOC_PATH_SEGMENTS, compared lowercased (canonical paths are ASCII).
_DOC_SEGMENT_TEXT = "/(?:{})(?:/|$)".format("|".join(map(re.escape, sorted(DOC_PATH_SEGMENTS))))
_DOC_SEGMENT = re.compile(_DOC_SEGMENT_TEXT, re.IGNORECASE | re.ASCII)
# Whatever VIDEO_PATH, NEWS_PATH or _DOC_SEGMENT matches in a path, this matches in the path
# lowercased (each needs a "/" and then a word or a date): most paths carry none of them, and
# one case-sensitive scan tells so (case-insensitive matching costs twice as much).
_ANY_PATH_SIGNAL = re.compile(
    "|".join(
        (
            VIDEO_PATH.pattern.removeprefix("(?i)^"),
            NEWS_PATH.pattern.removeprefix("(?i)"),
            _DOC_SEGMENT_TEXT,
        )
    ),
    re.ASCII,
)


def host_kinds(host: str) -> int:
    """What the host alone says: the ``VIDEO_HOST``, ``NEWS_HOST`` and ``DOC_HOST`` bits.

    A host counts as in a table when it or one of its parent domains is (``edition.cnn.com``
    is ``cnn.com``); a documentation subdomain (``docs.pydantic.dev``) counts as a doc host.
    """
    first, dot, name = host.partition(".")
    kinds = _TABLED_HOSTS.get(host, 0)
    if first in _DOC_SUBDOMAINS:
        kinds |= DOC_HOST
    while dot:  # each parent domain, one partition per label
        kinds |= _TABLED_HOSTS.get(name, 0)
        _, dot, name = name.partition(".")
    return kinds


def _extension(path: str) -> str:
    last = path.rpartition("/")[2]
    dot = last.rfind(".")
    return last[dot + 1 :].lower() if dot > 0 else ""


def classify_source_type(url: str | None, title: str | None = None) -> SourceType:
    """The source type of a citation's URL (see the module docstring for the order)."""
    parsed = parse_url(url)
    if parsed is None or redirector_of(parsed) is not None:
        return "unknown"
    return classify_end_site(host_kinds(parsed.host), parsed.path, title)


def classify_end_site(kinds: int, path: str, title: str | None) -> SourceType:
    """``classify_source_type`` of an end-site URL: its ``host_kinds``, canonical path, title.

    The path is canonical (ASCII, "" for the root, else starting with "/"), so the table
    lookups on it can be regular expressions built from the tables.
    """
    if kinds & VIDEO_HOST:
        return "video"
    extension = _extension(path) if "." in path else ""
    signal = path and _ANY_PATH_SIGNAL.search(path.lower()) is not None
    if (signal and VIDEO_PATH.match(path)) or extension in VIDEO_EXTENSIONS:
        return "video"
    if title and _VIDEO_TITLE.search(title):
        return "video"
    if extension in DOC_EXTENSIONS or (title and _DOC_TITLE.match(title)):
        return "doc"
    if kinds & NEWS_HOST or (signal and NEWS_PATH.search(path)):
        return "news"
    if kinds & DOC_HOST or (signal and _DOC_SEGMENT.search(path)):
        return "doc"
    return "web"
