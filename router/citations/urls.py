"""Canonical URLs, deduplication keys and redirect awareness, all offline (DESIGN.md section 3).

``normalize_url`` applies the syntax-based normalisation of RFC 3986 section 6.2.2 (lowercase
scheme and host, uppercase percent-encoding hex digits, decode percent-encoded unreserved
characters, remove dot segments per section 5.2.4) and the scheme-based one of section 6.2.3
(drop the default port, one form for the empty root path), then removes what only tracks the
reader: ``utm_*`` and the known click and campaign identifiers (the data of
``router.citations.tracking``), and the text-fragment directive
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

from router.citations.domains import host_parts
from router.citations.hosts import authority_and_host
from router.citations.tracking import (
    TRACKING_PARAMETERS,
    TRACKING_PREFIXES,
    tracking_part_matcher,
)

__all__ = [
    "REDIRECTORS",
    "TRACKING_PARAMETERS",
    "TRACKING_PREFIXES",
    "CanonicalUrl",
    "Redirector",
    "UrlParts",
    "canonical_dedup_key",
    "dedup_key",
    "is_redirect_url",
    "matching_redirector",
    "normalize_url",
    "parse_url",
    "redirector_for",
    "redirector_of",
    "redirectors_of_host",
    "source_host",
    "split_canonical_url",
    "unwrap_redirect",
]


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
_WILDCARD_PREFIXES = tuple(f"{name}." for name in _WILDCARD_REDIRECTOR_NAMES)

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
# The common case in one scan: a lowercase http(s) scheme, no fragment, and a path and query of
# characters that stay as they are: unreserved and sub-delimiter characters, and escapes that
# are already in canonical form (uppercase hex, not of an unreserved character). Such a URL
# needs no percent-encoding work; anything else takes the general path.
_KEPT_CHARS = r"A-Za-z0-9\-._~!$&'()*+,;=:@/"
_KEPT_ESCAPE = r"%(?:[01][0-9A-F]|2[0-9A-CF]|3[A-F]|40|5[B-E]|60|7[B-DF]|[89A-F][0-9A-F])"
# Possessive quantifiers: a URL that is not plain fails at once, instead of the engine trying
# every split of host, path and query (whole microseconds on a URL with a space in its query).
_PLAIN_URL = re.compile(
    rf"(https?)://([^/?#\t\n\r]*+)([{_KEPT_CHARS}]*+(?:{_KEPT_ESCAPE}[{_KEPT_CHARS}]*+)*+)"
    rf"(?:\?([{_KEPT_CHARS}?]*+(?:{_KEPT_ESCAPE}[{_KEPT_CHARS}?]*+)*+))?\Z"
)
# A written scheme (RFC 3986 section 3.1), and a port where ``host:`` looked like one.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_PORT = re.compile(r"[0-9]+(?:[/?#]|\Z)")
_AUTHORITY = re.compile(r"[^/?#]*")
# Schemes whose authority does not name a web source: scripts, inline data, local files,
# browser objects, storage buckets.
_HOSTLESS_SCHEMES = frozenset(
    {"javascript", "vbscript", "data", "file", "blob", "about", "mailto", "gs", "s3"}
)
_TEXT_FRAGMENT_DIRECTIVE = ":~:"
_MAX_UNWRAP_DEPTH = 5


def _fix_escape(match: re.Match[str]) -> str:
    escape = match.group()
    char = chr(int(escape[1:], 16))
    return char if char in _UNRESERVED else escape.upper()


def _encode(component: str, clean: re.Pattern[str], safe: str) -> str:
    """Percent-encode what may not appear raw and normalise existing escapes."""
    if clean.match(component):
        return component
    if "%" not in component:
        # Every escape will be one quote() made: uppercase, of a character that needs it.
        return quote(component, safe=safe, errors="strict")
    component = _STRAY_PERCENT.sub("%25", component)
    if not clean.match(component.replace("%", "")):
        component = quote(component, safe=safe, errors="strict")
    return _ESCAPE.sub(_fix_escape, component)


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


def _kept_parameters(query: str, host: str) -> str:
    """An encoded query without its tracking and empty ``name=value`` parts.

    A part is tracking when its name, compared lowercased, starts with one of
    ``TRACKING_PREFIXES``, is one of ``TRACKING_PARAMETERS``, or is one of the host's site's
    names (``router.citations.tracking``); the query is ASCII here.
    """
    tracking = tracking_part_matcher(host)
    return "&".join([part for part in query.split("&") if part and not tracking(part)])


def _fragment(fragment: str) -> str:
    fragment = _encode(fragment, _CLEAN_QUERY, _QUERY_SAFE)
    directive = fragment.find(_TEXT_FRAGMENT_DIRECTIVE)
    return fragment if directive < 0 else fragment[:directive]


class CanonicalUrl(NamedTuple):
    """A URL as ``normalize_url`` writes it, with the parts the citation rules read.

    Parsing once and reading the parts from here is what keeps a citation cheap: the redirect
    check, the dedup key, the registrable domain and the source type all need them.
    """

    url: str
    """The canonical URL, what ``normalize_url`` returns."""
    host: str
    """The canonical host, IPv6 without brackets, no port."""
    authority: str
    """``host[:port]`` as written in ``url`` (IPv6 in brackets, default port dropped)."""
    path: str
    """The canonical path, "" for the root."""
    query: str
    """The canonical query without its "?", "" when none is left."""


def normalize_url(url: object) -> str | None:
    """The canonical form of an http(s) URL, or None for anything else; never raises.

    ``HTTPS://WWW.Example.com:443/a/./b?utm_source=openai&id=7#:~:text=x`` gives
    ``https://www.example.com/a/b?id=7``. The result is a fixed point: normalising it again
    changes nothing.
    """
    parsed = parse_url(url)
    return parsed.url if parsed is not None else None


def parse_url(url: object) -> CanonicalUrl | None:
    """``normalize_url`` with the parts of its result, or None; never raises."""
    if not isinstance(url, str):
        return None
    try:
        return _parse(url)
    except UnicodeError:  # lone surrogates cannot be percent-encoded as UTF-8
        return None


def _parse(url: str, *, one_scan: bool = True) -> CanonicalUrl | None:
    """``parse_url`` of a string; ``one_scan=False`` forces the general path (for tests)."""
    text = url.strip(_C0_AND_SPACE)
    fragment = None
    # No tab or newline can be in a URL the one-scan pattern accepts: none to remove then.
    plain = _PLAIN_URL.match(text) if one_scan else None
    if plain is not None:
        scheme, netloc, path, query = plain.groups()
        if not netloc.isascii():
            netloc.encode("utf-8")  # lone surrogates cannot be percent-encoded: UnicodeError
        if "/." in path:
            path = _remove_dot_segments(path)
    else:
        if "\t" in text or "\n" in text or "\r" in text:
            text = _TAB_OR_NEWLINE.sub("", text)
        parts = _HTTP_URL.match(text)
        if parts is None:
            return None
        if not text.isascii():
            text.encode("utf-8")  # lone surrogates cannot be percent-encoded: UnicodeError
        scheme_text, netloc, raw_path, query, fragment = parts.groups()
        scheme = scheme_text.lower()
        path = _remove_dot_segments(_encode(raw_path, _CLEAN_PATH, _PATH_SAFE))
        if query:
            query = _encode(query, _CLEAN_QUERY, _QUERY_SAFE)
    found = authority_and_host(netloc, scheme)
    if found is None:
        return None
    authority, host = found
    if path == "/":
        path = ""
    canonical = f"{scheme}://{authority}{path}"
    if query:
        query = _kept_parameters(query, host)
        if query:
            canonical = f"{canonical}?{query}"
    else:
        query = ""
    if fragment:
        fragment = _fragment(fragment)
        if fragment:
            canonical = f"{canonical}#{fragment}"
    # tuple.__new__ skips the NamedTuple's Python-level __new__: this runs once per citation.
    return tuple.__new__(CanonicalUrl, (canonical, host, authority, path, query))


def source_host(url: object) -> str | None:
    """The canonical host a URL that is not http(s) names, else None; never raises.

    A URL of another scheme with an authority names its host (``ftp://files.example.com/a``), and
    so does a bare host without a scheme (``www.example.com/a``, ``example.com:8080``,
    ``//cdn.example.com/x``). Script, data, file, blob, mail and storage URLs name none, whatever
    follows their scheme. The citation keeps such a source with ``url`` None (DESIGN.md section
    3: only http and https survive as URLs).
    """
    if not isinstance(url, str):
        return None
    text = _TAB_OR_NEWLINE.sub("", url.strip(_C0_AND_SPACE))
    scheme = _SCHEME.match(text)
    if scheme is not None and not _PORT.match(text, scheme.end()):
        if scheme.group(1).lower() in _HOSTLESS_SCHEMES or not text.startswith("//", scheme.end()):
            return None
        text = text[scheme.end() + 2 :]
    elif text.startswith("//"):
        text = text[2:]
    authority = _AUTHORITY.match(text)
    found = authority_and_host(authority.group(), "") if authority is not None else None
    return found[1] if found is not None else None


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
    parsed = parse_url(url)
    if parsed is None:
        return url.strip() if isinstance(url, str) else ""
    return canonical_dedup_key(parsed)


def canonical_dedup_key(parsed: CanonicalUrl) -> str:
    """``dedup_key`` of a URL already parsed."""
    authority, query = parsed.authority, parsed.query
    # Drop leading "www." labels, but never down to a bare suffix: www.com stays www.com, and
    # www.www.com and www.com give one key. Only the host counts, not a dot in the query.
    while authority.startswith("www.") and "." in authority[4:]:
        authority = authority[4:]
    location = authority + parsed.path
    if not query:
        return location
    return f"{location}?{'&'.join(sorted(query.split('&')))}"


def redirector_for(canonical: str) -> Redirector | None:
    """The redirector a URL that ``normalize_url`` returned belongs to, else None.

    The cheap form of ``is_redirect_url`` for callers that already hold the canonical URL.
    """
    found = _redirector_for(canonical)
    return found[0] if found is not None else None


def redirector_of(parsed: CanonicalUrl) -> Redirector | None:
    """The redirector a parsed URL belongs to, else None."""
    candidates = redirectors_of_host(parsed.host, host_parts(parsed.host).suffix)
    return matching_redirector(candidates, parsed.path, parsed.query)


def _redirector_for(url: str) -> tuple[Redirector, str] | None:
    """The redirector a canonical URL belongs to, with the URL's query; None if none."""
    parts = split_canonical_url(url)
    if parts is None:
        return None
    candidates = redirectors_of_host(parts.host, host_parts(parts.host).suffix)
    found = matching_redirector(candidates, parts.path, parts.query)
    return (found, parts.query) if found is not None else None


def redirectors_of_host(host: str, suffix: str | None) -> tuple[Redirector, ...]:
    """The redirectors whose hosts include this canonical host (most hosts: none).

    ``suffix`` is the host's public suffix (``host_parts(host).suffix``).
    """
    candidates = _EXACT_REDIRECTOR_HOSTS.get(host, ())
    # A host whose name left of the suffix is a wildcard name starts with that name and a dot:
    # most hosts fail that first, cheaper test.
    if (
        not candidates
        and suffix
        and host.startswith(_WILDCARD_PREFIXES)
        and host.endswith(f".{suffix}")
    ):
        candidates = _WILDCARD_REDIRECTOR_NAMES.get(host[: -len(suffix) - 1], ())
    return candidates


def matching_redirector(
    candidates: tuple[Redirector, ...], path: str, query: str
) -> Redirector | None:
    """The first of a host's redirectors whose path (and target parameter) the URL has."""
    if not candidates:
        return None
    path = path or "/"
    for redirector in candidates:
        if redirector.path.endswith("/"):
            matches = path.startswith(redirector.path) and len(path) > len(redirector.path)
            if redirector.target_parameters and path == redirector.path:
                matches = True  # l.instagram.com/?u=...: the target is in the query
        else:
            matches = path == redirector.path
        if matches and (redirector.opaque or _target_parameter(redirector, query)):
            return redirector
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
