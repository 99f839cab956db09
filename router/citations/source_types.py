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

from router.citations.urls import normalize_url, redirector_for, split_canonical_url
from router.types import SourceType

__all__ = [
    "DOC_EXTENSIONS",
    "DOC_HOSTS",
    "DOC_PATH_SEGMENTS",
    "NEWS_HOSTS",
    "NEWS_PATH",
    "VIDEO_EXTENSIONS",
    "VIDEO_HOSTS",
    "VIDEO_PATH",
    "classify_source_type",
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
NEWS_PATH = re.compile(
    r"(?i)^/(?:.*/)?(?:news|article|articles|story|stories|live-updates|breaking-news|headlines)"
    r"(?:/|$)|/(?:19|20)\d{2}/[01]?\d/[0-3]?\d/"
)

_VIDEO_TITLE = re.compile("(?i)[-|\u2013\u2014]\\s*(?:youtube|vimeo)\\s*$")
_DOC_TITLE = re.compile(r"(?i)^\s*\[(?:pdf|doc|docx|ppt|pptx)\]")


def _host_in(host: str, table: frozenset[str]) -> bool:
    """Whether the host or one of its parent domains is in the table."""
    while True:
        if host in table:
            return True
        dot = host.find(".")
        if dot < 0:
            return False
        host = host[dot + 1 :]


def _extension(path: str) -> str:
    last = path.rpartition("/")[2]
    dot = last.rfind(".")
    return last[dot + 1 :].lower() if dot > 0 else ""


def classify_source_type(url: str | None, title: str | None = None) -> SourceType:
    """The source type of a citation's URL (see the module docstring for the order)."""
    canonical = normalize_url(url)
    if canonical is None or redirector_for(canonical) is not None:
        return "unknown"
    parts = split_canonical_url(canonical)
    if parts is None:
        return "unknown"
    host = parts.host
    path = parts.path
    extension = _extension(path)
    title = title or ""
    if (
        _host_in(host, VIDEO_HOSTS)
        or VIDEO_PATH.match(path)
        or extension in VIDEO_EXTENSIONS
        or _VIDEO_TITLE.search(title)
    ):
        return "video"
    if extension in DOC_EXTENSIONS or _DOC_TITLE.match(title):
        return "doc"
    if _host_in(host, NEWS_HOSTS) or NEWS_PATH.search(path):
        return "news"
    if (
        _host_in(host, DOC_HOSTS)
        or host.partition(".")[0] in _DOC_SUBDOMAINS
        or not DOC_PATH_SEGMENTS.isdisjoint(path.lower().split("/"))
    ):
        return "doc"
    return "web"
