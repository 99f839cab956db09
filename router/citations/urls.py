"""Canonical URLs, deduplication keys and redirect awareness, all offline (DESIGN.md section 3).

``normalize_url`` applies the syntax-based normalisation of RFC 3986 section 6.2.2 (lowercase
scheme and host, uppercase percent-encoding hex digits, decode percent-encoded unreserved
characters, remove dot segments per section 5.2.4) and the scheme-based one of section 6.2.3
(drop the default port, one form for the empty root path), then removes what only tracks the
reader: ``utm_*`` and the known click and campaign identifiers, and the text-fragment directive
``:~:text=`` of a fragment. Characters that may not appear in a URL (the spaces in Google's
``google.com/search?q=weather in Paris`` chunks, non-ASCII text) are percent-encoded as UTF-8;
reserved characters that were percent-encoded stay encoded (``%2F`` in a query is not ``/``).
The root is written without a path: ``https://example.com/`` becomes ``https://example.com``.
Credentials in the authority are dropped. Only http and https URLs survive.

Redirectors are data (``REDIRECTORS``): hosts whose URLs stand for another URL. Those that
carry the target in a query parameter are unwrapped here; the opaque ones (Vertex's
``grounding-api-redirect``, t.co, bit.ly, ...) need the optional ``RedirectResolver``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import quote, unquote

from router.citations.domains import public_suffix
from router.citations.hosts import canonical_authority

__all__ = [
    "REDIRECTORS",
    "TRACKING_PARAMETERS",
    "TRACKING_PREFIXES",
    "Redirector",
    "UrlParts",
    "dedup_key",
    "is_redirect_url",
    "normalize_url",
    "redirector_for",
    "split_canonical_url",
    "unwrap_redirect",
]

# Query parameters that identify a click, a campaign or a share, never the page (compared
# lowercased). Generic names such as `ref`, `source` or `id` are deliberately absent: sites use
# them to pick content.
TRACKING_PREFIXES: tuple[str, ...] = ("utm_", "mtm_")
TRACKING_PARAMETERS: frozenset[str] = frozenset(
    {
        "_ga",  # Google Analytics cross-domain linker
        "_gl",
        "_hsenc",  # HubSpot
        "_hsmi",
        "__hsfp",
        "__hssc",
        "__hstc",
        "dclid",  # Google Display & Video 360
        "ef_id",  # Adobe Advertising
        "epik",  # Pinterest
        "fbclid",  # Meta
        "gad_campaignid",  # Google Ads
        "gad_source",
        "gbraid",
        "gclid",
        "gclsrc",
        "wbraid",
        "igsh",  # Instagram share ids
        "igshid",
        "li_fat_id",  # LinkedIn
        "mc_cid",  # Mailchimp
        "mc_eid",
        "mkt_tok",  # Marketo
        "msclkid",  # Microsoft Ads
        "oly_anon_id",  # Omeda
        "oly_enc_id",
        "pk_campaign",  # Matomo (Piwik) campaign names; `pk_` alone is too generic
        "pk_content",
        "pk_keyword",
        "pk_kwd",
        "pk_medium",
        "pk_source",
        "rb_clickid",  # Rakuten
        "s_kwcid",  # Adobe Analytics
        "srsltid",  # Google Merchant Center
        "ttclid",  # TikTok
        "twclid",  # X / Twitter
        "vero_conv",  # Vero
        "vero_id",
        "yclid",  # Yandex
    }
)


@dataclass(frozen=True, slots=True)
class Redirector:
    """A family of URLs that stand for another URL.

    ``hosts`` are exact hosts; a host ending in ``.*`` stands for that name under any public
    suffix (``www.google.*`` matches ``www.google.co.uk``). ``path`` ending in ``/`` is a prefix
    that must be followed by something (``t.co/`` matches ``t.co/abc`` but not the home page);
    any other ``path`` must match exactly. ``target_parameters`` name the query parameters that
    carry the target, first match wins; an empty tuple marks an opaque redirector, whose target
    only an HTTP request reveals.
    """

    name: str
    hosts: frozenset[str]
    path: str
    target_parameters: tuple[str, ...] = ()

    @property
    def opaque(self) -> bool:
        """True when the target is not in the URL and only the resolver can learn it."""
        return not self.target_parameters


def _hosts(*names: str) -> frozenset[str]:
    return frozenset(names)


REDIRECTORS: tuple[Redirector, ...] = (
    Redirector(
        "vertex_grounding",
        _hosts("vertexaisearch.cloud.google.com", "vertexaisearch.cloud.sandbox.google.com"),
        "/grounding-api-redirect/",
    ),
    Redirector("google_url", _hosts("google.*", "www.google.*"), "/url", ("q", "url")),
    Redirector(
        "facebook_link_shim",
        _hosts("l.facebook.com", "lm.facebook.com", "m.facebook.com", "www.facebook.com"),
        "/l.php",
        ("u",),
    ),
    Redirector("instagram_link_shim", _hosts("l.instagram.com"), "/", ("u",)),
    Redirector("youtube_redirect", _hosts("www.youtube.com", "youtube.com"), "/redirect", ("q",)),
    Redirector("reddit_out", _hosts("out.reddit.com"), "/", ("url",)),
    Redirector("duckduckgo_l", _hosts("duckduckgo.com"), "/l/", ("uddg",)),
    Redirector("vk_away", _hosts("vk.com", "m.vk.com"), "/away.php", ("to",)),
    Redirector("steam_linkfilter", _hosts("steamcommunity.com"), "/linkfilter/", ("url", "u")),
    Redirector("slack_redir", _hosts("slack-redir.net"), "/link", ("url",)),
    Redirector("tumblr_redirect", _hosts("t.umblr.com"), "/redirect", ("z",)),
    Redirector("linkedin_shortener", _hosts("lnkd.in"), "/"),
    Redirector("x_shortener", _hosts("t.co"), "/"),
    Redirector("bitly", _hosts("bit.ly", "bitly.com", "j.mp"), "/"),
    Redirector("tinyurl", _hosts("tinyurl.com"), "/"),
    Redirector("owly", _hosts("ow.ly"), "/"),
    Redirector("buffer", _hosts("buff.ly"), "/"),
    Redirector("google_shortener", _hosts("goo.gl"), "/"),
    Redirector("isgd", _hosts("is.gd"), "/"),
    Redirector("rebrandly", _hosts("rebrand.ly"), "/"),
    Redirector("dlvrit", _hosts("dlvr.it"), "/"),
    Redirector("tribal", _hosts("trib.al"), "/"),
    Redirector("facebook_shortener", _hosts("fb.me"), "/"),
    Redirector("amazon_shortener", _hosts("amzn.to"), "/"),
    Redirector("cuttly", _hosts("cutt.ly"), "/"),
)

_EXACT_REDIRECTOR_HOSTS: dict[str, tuple[Redirector, ...]] = {}
_WILDCARD_REDIRECTOR_NAMES: dict[str, tuple[Redirector, ...]] = {}
for _redirector in REDIRECTORS:
    for _host in _redirector.hosts:
        table = _EXACT_REDIRECTOR_HOSTS
        if _host.endswith(".*"):
            table, _host = _WILDCARD_REDIRECTOR_NAMES, _host[:-2]
        table[_host] = (*table.get(_host, ()), _redirector)

# RFC 3986 section 2: characters allowed raw in each component ('%' stays: escapes are
# normalised separately). Letters, digits and "_.-~" are always safe for `quote`.
_SUB_DELIMS = "!$&'()*+,;="
_PATH_SAFE = _SUB_DELIMS + ":@/%"
_QUERY_SAFE = _PATH_SAFE + "?"
_CLEAN_PATH = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*\Z")
_CLEAN_QUERY = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*\Z")
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# WHATWG URL: tabs and newlines anywhere in the input are removed, as browsers do.
_TAB_OR_NEWLINE = re.compile(r"[\t\n\r]")
_C0_AND_SPACE = "".join(chr(code) for code in range(0x21))
# RFC 3986 appendix B, narrowed to http(s) URLs with an authority (as WHATWG requires for them).
_HTTP_URL = re.compile(r"(?is)(https?)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?\Z")
_TEXT_FRAGMENT_DIRECTIVE = ":~:"
# A host is at most 253 characters: an authority far longer is not a usable one (and is kept
# out of the host caches, whose keys stay in memory).
_MAX_AUTHORITY_CHARS = 1_024
_MAX_UNWRAP_DEPTH = 5


def _fix_escape(match: re.Match[str]) -> str:
    escape = match.group()
    char = chr(int(escape[1:], 16))
    return char if char in _UNRESERVED else escape.upper()


def _encode(component: str, clean: re.Pattern[str], safe: str) -> str:
    """Percent-encode what may not appear raw and normalise existing escapes."""
    if clean.match(component):
        return component
    if "%" in component:
        component = _STRAY_PERCENT.sub("%25", component)
    if not clean.match(component.replace("%", "")):
        component = quote(component, safe=safe, errors="strict")
    if "%" in component:
        component = _ESCAPE.sub(_fix_escape, component)
    return component


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4 for the absolute paths of URLs with an authority."""
    if "/." not in path:
        return path
    output: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            if output:
                output.pop()
        elif segment != ".":
            output.append(segment)
    if path.endswith(("/.", "/..")):
        output.append("")
    return "/" + "/".join(output)


def _is_tracking(parameter: str) -> bool:
    name = parameter.partition("=")[0].lower()
    return name.startswith(TRACKING_PREFIXES) or name in TRACKING_PARAMETERS


def _query_parameters(query: str) -> list[str]:
    """The query's ``name=value`` parts, encoded, without tracking ones or empty ones."""
    query = _encode(query, _CLEAN_QUERY, _QUERY_SAFE)
    return [part for part in query.split("&") if part and not _is_tracking(part)]


def _fragment(fragment: str) -> str:
    fragment = _encode(fragment, _CLEAN_QUERY, _QUERY_SAFE)
    directive = fragment.find(_TEXT_FRAGMENT_DIRECTIVE)
    return fragment if directive < 0 else fragment[:directive]


def normalize_url(url: object) -> str | None:
    """The canonical form of an http(s) URL, or None for anything else; never raises.

    ``HTTPS://WWW.Example.com:443/a/./b?utm_source=openai&id=7#:~:text=x`` gives
    ``https://www.example.com/a/b?id=7``. The result is a fixed point: normalising it again
    changes nothing.
    """
    if not isinstance(url, str):
        return None
    try:
        return _normalize(url)
    except UnicodeError:  # lone surrogates cannot be percent-encoded as UTF-8
        return None


def _normalize(url: str) -> str | None:
    text = url.strip(_C0_AND_SPACE)
    if "\t" in text or "\n" in text or "\r" in text:
        text = _TAB_OR_NEWLINE.sub("", text)
    parts = _HTTP_URL.match(text)
    if parts is None:
        return None
    if not text.isascii():
        text.encode("utf-8")  # lone surrogates cannot be percent-encoded: UnicodeError
    scheme_text, netloc, raw_path, query, fragment = parts.groups()
    if len(netloc) > _MAX_AUTHORITY_CHARS:
        return None
    scheme = scheme_text.lower()
    authority = canonical_authority(netloc, scheme)
    if not authority:
        return None
    path = _remove_dot_segments(_encode(raw_path, _CLEAN_PATH, _PATH_SAFE))
    if path == "/":
        path = ""
    canonical = f"{scheme}://{authority}{path}"
    if query:
        parameters = _query_parameters(query)
        if parameters:
            canonical = f"{canonical}?{'&'.join(parameters)}"
    if fragment:
        fragment = _fragment(fragment)
        if fragment:
            canonical = f"{canonical}#{fragment}"
    return canonical


class UrlParts(NamedTuple):
    """The parts of a canonical URL; ``host`` without brackets or port."""

    scheme: str
    host: str
    port: int | None
    path: str
    query: str
    fragment: str


def split_canonical_url(canonical: str) -> UrlParts | None:
    """Split a URL that ``normalize_url`` returned (cheaper than ``urlsplit``; no checks)."""
    parts = _HTTP_URL.match(canonical)
    if parts is None:
        return None
    scheme, authority, path, query, fragment = parts.groups()
    if authority.startswith("["):
        close = authority.index("]")
        host, port_text = authority[1:close], authority[close + 2 :]
    else:
        host, _, port_text = authority.partition(":")
    port = int(port_text) if port_text else None
    return UrlParts(scheme, host, port, path, query or "", fragment or "")


def dedup_key(url: str) -> str:
    """The key under which two citations are the same source.

    Scheme-insensitive, leading ``www.`` dropped, tracking parameters and fragment removed, query
    parameters sorted: ``http://www.example.com/a?b=2&a=1#x`` gives ``example.com/a?a=1&b=2``.
    A string that is not an http(s) URL is its own key (stripped).
    """
    canonical = normalize_url(url)
    if canonical is None:
        return url.strip() if isinstance(url, str) else ""
    rest = canonical.partition("://")[2].partition("#")[0]
    # Drop leading "www." labels, but never down to a bare suffix: www.com stays www.com, and
    # www.www.com and www.com give one key.
    while rest.startswith("www.") and "." in rest[4:].partition("/")[0]:
        rest = rest[4:]
    location, _, query = rest.partition("?")
    if not query:
        return location
    return f"{location}?{'&'.join(sorted(query.split('&')))}"


def redirector_for(canonical: str) -> Redirector | None:
    """The redirector a URL that ``normalize_url`` returned belongs to, else None.

    The cheap form of ``is_redirect_url`` for callers that already hold the canonical URL.
    """
    found = _redirector_for(canonical)
    return found[0] if found is not None else None


def _redirector_for(url: str) -> tuple[Redirector, str] | None:
    """The redirector a canonical URL belongs to, with the URL's query; None if none."""
    parts = split_canonical_url(url)
    if parts is None:
        return None
    host = parts.host
    candidates = _EXACT_REDIRECTOR_HOSTS.get(host, ())
    if not candidates and _WILDCARD_REDIRECTOR_NAMES:
        suffix = public_suffix(host)
        if suffix and host.endswith(f".{suffix}"):
            candidates = _WILDCARD_REDIRECTOR_NAMES.get(host[: -len(suffix) - 1], ())
    path = parts.path or "/"
    for redirector in candidates:
        if redirector.path.endswith("/"):
            matches = path.startswith(redirector.path) and len(path) > len(redirector.path)
            if redirector.target_parameters and path == redirector.path:
                matches = True  # l.instagram.com/?u=...: the target is in the query
        else:
            matches = path == redirector.path
        if matches and (redirector.opaque or _target_parameter(redirector, parts.query)):
            return redirector, parts.query
    return None


def _target_parameter(redirector: Redirector, query: str) -> str | None:
    if not query:
        return None
    values: dict[str, str] = {}
    for part in query.split("&"):
        name, _, value = part.partition("=")
        values.setdefault(unquote(name).lower(), value)
    for name in redirector.target_parameters:
        target = values.get(name)
        if target:
            return unquote(target.replace("+", " "))
    return None


def is_redirect_url(url: str | None) -> bool:
    """Whether the URL belongs to a known redirector (opaque or carrying its target)."""
    canonical = normalize_url(url)
    return canonical is not None and _redirector_for(canonical) is not None


def unwrap_redirect(url: str) -> str | None:
    """The canonical target a redirect URL carries in a query parameter, else None.

    Nested wrappers are unwrapped (a Google ``/url`` around a Facebook link shim); a target that
    is not an http(s) URL (``javascript:``) gives None, and so does an opaque redirector.
    """
    current = normalize_url(url)
    unwrapped = False
    for _ in range(_MAX_UNWRAP_DEPTH):
        if current is None:
            return None
        found = _redirector_for(current)
        if found is None:
            break
        redirector, query = found
        if redirector.opaque:
            return current if unwrapped else None
        current = normalize_url(_target_parameter(redirector, query))
        unwrapped = True
    return current if unwrapped else None
