"""What a citation's URL, title and hints say: canonical URL, dedup key, domain, type, title.

``source_domain`` is redirect-aware; it comes from the first of:

1. ``url`` itself when it is an end-site URL (a redirector carrying its target in a parameter,
   such as ``google.com/url?q=``, is unwrapped first), how = "url" or "unwrapped";
2. a nested non-redirect URL of the provider object (``web.uri``, ``source.url``,
   ``reference.url``), how = "nested_url";
3. the URL the optional ``RedirectResolver`` found, how = "resolved";
4. the host of a ``url`` that is not http(s) (``ftp://host/...``, a bare ``host/path``), which
   keeps the source with ``url`` None; never a script or data URL's, how = "url_host";
5. the provider's domain field (``web.domain``, ``domain``, ``host``), how = "domain_hint";
6. the title, when it is a bare domain (Vertex titles redirect chunks so), how = "title";
7. only then the redirector's own domain, how = "redirector".

``redirect`` says whether the citation's ``url`` is still a redirect link: ``REDIRECT_LINK``
when the true domain came from a hint or the title (steps 5 and 6), ``REDIRECT_ONLY`` when it is
unknown (step 7). The citation's ``raw`` carries both facts (``raw["redirect"]``,
``raw["redirect_only"]``); ALS counts only the redirect-only ones apart.

No domain from any of these leaves ``domain`` empty: the caller drops the citation.

Each URL is parsed once (:func:`router.citations.urls.parse_url`); the redirect check, the dedup
key, the registrable domain and the source type are all read from that one parse. Nothing here
is memoised by URL: real replies rarely repeat one (Vertex redirect URIs are unique per reply).
Only host-level facts are cached, in ``domains`` and ``source_types``, because hosts do repeat.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from router.citations.domains import domain_name_host, split_host
from router.citations.source_types import classify_end_site, host_kinds
from router.citations.text import TITLE_LIMIT, sanitize_text
from router.citations.urls import (
    CanonicalUrl,
    Redirector,
    canonical_dedup_key,
    matching_redirector,
    parse_url,
    redirector_of,
    redirectors_of_host,
    source_host,
    unwrap_redirect,
)
from router.types import SourceType

__all__ = ["NOT_REDIRECT", "REDIRECT_LINK", "REDIRECT_ONLY", "Derived", "derive"]

NOT_REDIRECT = 0
"""The citation's url is an end-site URL, or there is none."""
REDIRECT_LINK = 1
"""The url is a redirect link; the true domain came from a hint or the title."""
REDIRECT_ONLY = 2
"""The url is a redirect link and the true domain is unknown: the redirector's own is used."""

_HOST_CACHE_SIZE = 16_384


class Derived(NamedTuple):
    """What a citation's URL, title and hints give, independent of the call's other fields."""

    url: str | None
    key: str | None
    """``dedup_key(url)``, None when there is no URL."""
    domain: str
    """Registrable domain; "" when none could be derived (the citation is dropped)."""
    title: str | None
    source_type: SourceType
    redirect: int
    """``NOT_REDIRECT``, ``REDIRECT_LINK`` or ``REDIRECT_ONLY``."""
    how: str


class _HostFacts(NamedTuple):
    registrable: str
    named_domain: str
    """The registrable domain when the host is a domain name under a known suffix, else ""."""
    redirectors: tuple[Redirector, ...]
    kinds: int
    """``source_types.host_kinds``."""


@lru_cache(maxsize=_HOST_CACHE_SIZE)
def _host_facts(host: str) -> _HostFacts:
    """Everything a canonical host alone decides, in one lookup; hosts repeat across replies."""
    parts = split_host(host)
    named = parts.registrable if parts.label and parts.suffix is not None else ""
    redirectors = redirectors_of_host(host, parts.suffix)
    return tuple.__new__(_HostFacts, (parts.registrable, named, redirectors, host_kinds(host)))


def _domain_of_name(text: str) -> str:
    """``domains.domain_of_name``, through the host facts cache."""
    host = domain_name_host(text)
    return _host_facts(host).named_domain if host is not None else ""


def _domain_of_host(host: str | None) -> str:
    """The registrable domain of a host named outside an http(s) URL: a domain name under a
    known suffix, or an IP address; "" for a bare label, which is too ambiguous to count."""
    if host is None:
        return ""
    named = _host_facts(host).named_domain
    if named:
        return named
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return ""
    return host


_EndSite = tuple[CanonicalUrl, _HostFacts]


def _end_site(parsed: CanonicalUrl | None) -> tuple[_EndSite | None, bool]:
    """(the end-site URL with its host's facts, or None; whether it was an unwrapped redirect)."""
    if parsed is None:
        return None, False
    facts = _host_facts(parsed.host)
    if not facts.redirectors:
        return (parsed, facts), False
    redirector = matching_redirector(facts.redirectors, parsed.path, parsed.query)
    if redirector is None:
        return (parsed, facts), False
    target = None if redirector.opaque else parse_url(unwrap_redirect(parsed.url))
    if target is not None and redirector_of(target) is None:
        return (target, _host_facts(target.host)), True
    return None, False


class _Found(NamedTuple):
    """A domain, how it was found, and the end-site URL it is the domain of (if a URL gave it)."""

    domain: str
    how: str
    end_site: _EndSite | None = None


_NOTHING = _Found("", "none")


def _found(domain: str, how: str, end_site: _EndSite | None = None) -> _Found:
    # tuple.__new__ skips the NamedTuple's Python-level __new__: once per citation.
    return tuple.__new__(_Found, (domain, how, end_site))


def derive(
    url: str | None,
    title: str | None,
    *,
    nested_urls: Sequence[str | None],
    resolved_url: str | None,
    domain_hint: str | None,
    source_type: SourceType | None,
) -> Derived:
    """The URL, dedup key, domain, title and type of a citation (see the module docstring)."""
    clean_title = sanitize_text(title, limit=TITLE_LIMIT) if title is not None else None
    canonical = parse_url(url)
    # Step 1: the URL itself is an end site, or wraps one.
    if canonical is not None:
        facts = _host_facts(canonical.host)
        if not facts.redirectors:  # the common case: no redirector lives on this host
            found = _found(facts.registrable, "url", (canonical, facts))
            return _derived(found, None, clean_title, source_type)
        end_site, unwrapped = _end_site(canonical)
        if end_site is not None:
            found = _found(end_site[1].registrable, "unwrapped" if unwrapped else "url", end_site)
            return _derived(found, None, clean_title, source_type)
        # Past here ``canonical`` is a redirect link with no end site in it.
    return _fallback(
        url,
        canonical,
        clean_title,
        nested_urls=nested_urls,
        resolved_url=resolved_url,
        domain_hint=domain_hint,
        source_type=source_type,
    )


def _fallback(
    url: str | None,
    canonical: CanonicalUrl | None,
    clean_title: str | None,
    *,
    nested_urls: Sequence[str | None],
    resolved_url: str | None,
    domain_hint: str | None,
    source_type: SourceType | None,
) -> Derived:
    """Steps 2 to 7 of the module docstring, in its order: the first that names a domain gives
    it. Written out in line rather than as a table of steps: this runs for every Vertex chunk."""
    # Step 2: the first nested URL of the provider object that is an end site.
    for nested in nested_urls:
        site = _end_site(parse_url(nested))[0]
        if site is not None:
            if site[1].registrable:
                found = _found(site[1].registrable, "nested_url", site)
                return _derived(found, canonical, clean_title, source_type)
            break
    # Step 3: where the redirect resolver found the link to lead.
    if resolved_url is not None:
        site = _end_site(parse_url(resolved_url))[0]
        if site is not None and site[1].registrable:
            found = _found(site[1].registrable, "resolved", site)
            return _derived(found, canonical, clean_title, source_type)
    # Step 4: the host of a URL that is not http(s); never a script or data URL's.
    if canonical is None and url is not None:
        domain = _domain_of_host(source_host(url))
        if domain:
            return _derived(_found(domain, "url_host"), canonical, clean_title, source_type)
    # Step 5: the provider's own domain field.
    if domain_hint is not None:
        domain = _domain_of_name(domain_hint)
        if domain:
            return _derived(_found(domain, "domain_hint"), canonical, clean_title, source_type)
    # Step 6: the title, when it is a bare domain.
    if clean_title is not None:
        domain = _domain_of_name(clean_title)
        if domain:
            return _derived(_found(domain, "title"), canonical, clean_title, source_type)
    # Step 7, the last resort: the redirector's own domain.
    if canonical is not None:
        domain = _host_facts(canonical.host).registrable
        if domain:
            return _derived(_found(domain, "redirector"), canonical, clean_title, source_type)
    return _derived(_NOTHING, canonical, clean_title, source_type)


def _derived(
    found: _Found,
    redirect: CanonicalUrl | None,
    title: str | None,
    source_type: SourceType | None,
) -> Derived:
    """The citation's fields once its domain is found: the URL shown, the flag, the type."""
    end_site = found.end_site
    if end_site is not None:
        shown: CanonicalUrl | None = end_site[0]
        flag = NOT_REDIRECT
    elif redirect is None:
        shown, flag = None, NOT_REDIRECT
    else:
        shown = redirect
        flag = REDIRECT_ONLY if found.how == "redirector" else REDIRECT_LINK
    if source_type is None and found.domain:
        if end_site is not None:
            source_type = classify_end_site(end_site[1].kinds, end_site[0].path, title)
        elif flag == REDIRECT_ONLY:
            source_type = "unknown"
        else:  # the domain came from a hint or the title: what its home page would be
            source_type = classify_end_site(_host_facts(found.domain).kinds, "", title)
    url_shown, key = (shown.url, canonical_dedup_key(shown)) if shown is not None else (None, None)
    # tuple.__new__ skips the NamedTuple's Python-level __new__: this runs once per citation.
    return tuple.__new__(
        Derived, (url_shown, key, found.domain, title, source_type or "unknown", flag, found.how)
    )
