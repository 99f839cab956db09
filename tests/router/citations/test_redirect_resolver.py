"""RedirectResolver against a loopback redirector: what it resolves, caches and refuses."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import pytest

from router.citations import RedirectResolver
from router.citations.redirects import DEFAULT_RESOLVABLE_HOSTS
from router.settings import RouterSettings

# The resolver asks DNS only through its lookup seam; in tests the seam is this table, so no
# test depends on (or reaches) a real name server.
DNS = {
    "www.bbc.co.uk": ["151.101.0.81", "2a04:4e42::81"],
    "en.wikipedia.org": ["185.15.59.224"],
    "redirector.test": ["127.0.0.1"],
    "private-redirector.test": ["10.0.0.8"],
    "localhost": ["127.0.0.1", "::1"],
    "internal.example": ["10.0.0.7"],
    "metadata.example": ["169.254.169.254"],
    "mixed.example": ["93.184.216.34", "127.0.0.1"],
    "mapped.example": ["::ffff:10.1.2.3"],
    "documentation.test": ["203.0.113.5"],
}


class Lookup:
    """The table above as an async lookup, counting the questions asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        del port  # the table answers by name only
        self.asked.append(host)
        if host not in DNS:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return DNS[host]


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def lookup() -> Lookup:
    """The table DNS."""
    return Lookup()


@pytest.fixture
def make_resolver(lookup: Lookup) -> Callable[..., RedirectResolver]:
    """A resolver that may reach the loopback redirector (the test-only allowance)."""

    def build(**overrides: object) -> RedirectResolver:
        options: dict[str, object] = {
            "allowed_hosts": ["127.0.0.1", "redirector.test", "private-redirector.test"],
            "timeout_s": 5.0,
            "_allow_loopback": True,
            "_lookup": lookup,
        }
        options.update(overrides)
        return RedirectResolver(**options)  # type: ignore[arg-type]

    return build


@pytest.mark.asyncio
async def test_resolves_location_to_canonical_target(redirector, make_resolver) -> None:
    """One GET, redirects not followed: the Location is the answer, canonicalised."""
    url = redirector.redirect("bbc", "https://www.bbc.co.uk/news/world?utm_source=x")
    assert await make_resolver().resolve(url) == "https://www.bbc.co.uk/news/world"
    assert redirector.hits == ["bbc"]


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_every_redirect_status_counts(redirector, make_resolver, status: int) -> None:
    """Each redirect status code carries a usable Location."""
    url = redirector.redirect("s", "https://en.wikipedia.org/wiki/YARV", status=status)
    assert await make_resolver().resolve(url) == "https://en.wikipedia.org/wiki/YARV"


@pytest.mark.asyncio
async def test_redirect_is_not_followed(redirector, make_resolver) -> None:
    """A Location pointing back at the redirector is reported, not requested."""
    first = redirector.redirect("first", redirector.url("second"))
    redirector.redirect("second", "https://www.bbc.co.uk/")
    await make_resolver().resolve(first)
    assert redirector.hits == ["first"]


@pytest.mark.asyncio
async def test_redirector_name_is_resolved_vetted_and_pinned(
    redirector, make_resolver, lookup
) -> None:
    """A redirector reached by name is looked up once and connected to at the vetted address."""
    redirector.redirect("named", "https://www.bbc.co.uk/news")
    url = redirector.url("named", host="redirector.test")
    assert await make_resolver().resolve(url) == "https://www.bbc.co.uk/news"
    assert lookup.asked == ["redirector.test", "www.bbc.co.uk"]
    assert redirector.hits == ["named"]


@pytest.mark.asyncio
async def test_redirector_on_private_address_is_never_contacted(redirector, make_resolver) -> None:
    """A redirector name that resolves to a private address is refused before connecting."""
    redirector.redirect("x", "https://www.bbc.co.uk/")
    url = redirector.url("x", host="private-redirector.test")
    assert await make_resolver().resolve(url) is None


@pytest.mark.asyncio
async def test_loopback_redirector_refused_without_the_test_allowance(
    redirector, make_resolver, lookup
) -> None:
    """Without the private test allowance, a loopback redirector is refused: no request."""
    url = redirector.redirect("x", "https://www.bbc.co.uk/")
    named = redirector.url("x", host="redirector.test")
    resolver = make_resolver(_allow_loopback=False)
    assert await resolver.resolve_many([url, named]) == {}
    assert redirector.hits == []


def test_allowance_cannot_come_from_settings_or_environment(
    redirector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No setting or environment variable switches the loopback allowance on."""
    for name in (
        "GROUNDING_ROUTER_ALLOW_LOOPBACK",
        "GROUNDING_ROUTER_RESOLVER_ALLOW_LOOPBACK",
        "GROUNDING_ROUTER__ALLOW_LOOPBACK",
        "GROUNDING_ROUTER_RESOLVE_REDIRECTS",
    ):
        monkeypatch.setenv(name, "true")
    settings = RouterSettings(_env_file=None)
    assert settings.resolve_redirects is True
    assert not [name for name in RouterSettings.model_fields if "loopback" in name]
    url = redirector.redirect("x", "https://www.bbc.co.uk/")
    resolver = RedirectResolver(settings, allowed_hosts=["127.0.0.1"])
    assert resolver.resolve_many_sync([url]) == {}
    assert redirector.hits == []


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "location",
    [
        "http://127.0.0.1/admin",
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f000001/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://localhost:8080/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://172.16.0.1/",
        "http://100.64.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://[64:ff9b::a00:1]/",
        "http://[2002:a00:1::]/",
        "http://internal.example/",
        "http://metadata.example/",
        "http://mixed.example/",
        "http://mapped.example/",
        "http://unresolvable.example/",
    ],
)
async def test_targets_that_point_inward_are_refused(
    redirector, make_resolver, location: str
) -> None:
    """A target on a non-public address, in any spelling or via DNS, is refused (fail closed)."""
    url = redirector.redirect("inward", location)
    assert await make_resolver().resolve(url) is None
    assert redirector.hits == ["inward"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "location"),
    [
        (200, None),
        (404, None),
        (500, None),
        (302, None),
        (302, ""),
        (302, "javascript:alert(1)"),
        (302, "ftp://files.example.com/x"),
        (302, "/relative/path"),
    ],
    ids=[
        "ok",
        "not-found",
        "server-error",
        "no-location",
        "empty",
        "javascript",
        "ftp",
        "relative",
    ],
)
async def test_unusable_answers_give_none(
    redirector, make_resolver, status: int, location: str | None
) -> None:
    """Anything but a redirect to a public http(s) URL gives None (a relative one is loopback)."""
    url = redirector.redirect("odd", location, status=status)
    assert await make_resolver().resolve(url) is None


@pytest.mark.asyncio
async def test_hosts_off_the_allow_list_are_never_requested(make_resolver, lookup) -> None:
    """A URL on a host that is not an allow-listed redirector is answered None, offline."""
    resolver = make_resolver()
    urls = ["https://t.co/abc", "https://www.bbc.co.uk/news", "not a url"]
    assert await resolver.resolve_many(urls) == {}
    assert lookup.asked == []


@pytest.mark.asyncio
async def test_non_default_port_is_never_requested(make_resolver, lookup) -> None:
    """An allow-listed redirector on another port than its scheme's default is not contacted."""
    resolver = make_resolver(allowed_hosts=["documentation.test"], _allow_loopback=False)
    assert await resolver.resolve("https://documentation.test:8443/r/x") is None
    assert lookup.asked == []


def test_default_allow_list_is_the_opaque_redirectors() -> None:
    """By default only opaque redirector hosts are resolvable, the Vertex ones first of all."""
    assert "vertexaisearch.cloud.google.com" in DEFAULT_RESOLVABLE_HOSTS
    assert "vertexaisearch.cloud.sandbox.google.com" in DEFAULT_RESOLVABLE_HOSTS
    assert {"t.co", "lnkd.in", "bit.ly"} <= DEFAULT_RESOLVABLE_HOSTS
    assert "www.google.com" not in DEFAULT_RESOLVABLE_HOSTS
    assert RedirectResolver().allowed_hosts == DEFAULT_RESOLVABLE_HOSTS


@pytest.mark.asyncio
async def test_answers_are_cached(redirector, make_resolver) -> None:
    """A resolved URL is not requested again while its answer is fresh."""
    url = redirector.redirect("bbc", "https://www.bbc.co.uk/")
    resolver = make_resolver()
    assert await resolver.resolve(url) == "https://www.bbc.co.uk"
    assert await resolver.resolve(url) == "https://www.bbc.co.uk"
    assert redirector.hits == ["bbc"]


@pytest.mark.asyncio
async def test_failures_are_cached_for_a_shorter_time(redirector, make_resolver) -> None:
    """A failure is remembered for the negative TTL, a success for the full TTL."""
    clock = Clock()
    resolver = make_resolver(cache_ttl_s=100.0, negative_cache_ttl_s=10.0, _clock=clock)
    good = redirector.redirect("good", "https://www.bbc.co.uk/")
    bad = redirector.redirect("bad", None, status=404)
    await resolver.resolve_many([good, bad])
    await resolver.resolve_many([good, bad])
    assert sorted(redirector.hits) == ["bad", "good"]
    clock.now += 11
    await resolver.resolve_many([good, bad])
    assert sorted(redirector.hits) == ["bad", "bad", "good"]
    clock.now += 90
    await resolver.resolve_many([good, bad])
    assert sorted(redirector.hits) == ["bad", "bad", "bad", "good", "good"]


@pytest.mark.asyncio
async def test_cache_is_bounded(redirector, make_resolver) -> None:
    """The cache keeps at most max_cache_entries answers, dropping the least recent."""
    resolver = make_resolver(max_cache_entries=2)
    urls = [redirector.redirect(f"t{i}", "https://www.bbc.co.uk/") for i in range(3)]
    await resolver.resolve_many(urls)
    await resolver.resolve(urls[0])
    assert redirector.hits.count("t0") == 2


@pytest.mark.asyncio
async def test_resolve_many_keys_by_input_and_skips_failures(redirector, make_resolver) -> None:
    """resolve_many maps each input spelling to its target and leaves failures out."""
    url = redirector.redirect("bbc", "https://www.bbc.co.uk/news")
    spelled_differently = url.replace("http://", "HTTP://") + "#x"
    missing = redirector.url("missing")
    result = await make_resolver().resolve_many([url, spelled_differently, missing, url])
    assert result == {
        url: "https://www.bbc.co.uk/news",
        spelled_differently: "https://www.bbc.co.uk/news",
    }
    assert sorted(redirector.hits) == ["bbc", "missing"]


@pytest.mark.asyncio
async def test_concurrency_is_bounded(redirector, make_resolver) -> None:
    """No more requests are in flight at once than max_concurrency."""
    redirector.gate_at = 2
    urls = [redirector.redirect(f"c{i}", "https://www.bbc.co.uk/") for i in range(6)]
    result = await make_resolver(max_concurrency=2).resolve_many(urls)
    assert len(result) == 6
    assert redirector.most_in_flight == 2


@pytest.mark.asyncio
async def test_timeout_gives_none_and_never_raises(redirector, make_resolver) -> None:
    """A redirector that never answers costs one timeout and gives None."""
    url = redirector.redirect("hang", "https://www.bbc.co.uk/")
    assert await make_resolver(timeout_s=0.2).resolve(url) is None


def test_disabled_by_default_settings(redirector, make_settings) -> None:
    """Built from default settings the resolver is off and sends nothing."""
    resolver = RedirectResolver(make_settings(), allowed_hosts=["127.0.0.1"])
    url = redirector.redirect("bbc", "https://www.bbc.co.uk/")
    assert resolver.enabled is False
    assert resolver.resolve_many_sync([url]) == {}
    assert redirector.hits == []


def test_settings_configure_the_resolver(make_settings) -> None:
    """resolve_redirects and the resolver_* settings reach the resolver; explicit args win."""
    settings = make_settings(
        resolve_redirects=True,
        resolver_timeout_s=1.5,
        resolver_max_concurrency=3,
        resolver_cache_ttl_s=60.0,
    )
    resolver = RedirectResolver(settings)
    assert (resolver.enabled, resolver.timeout_s, resolver.max_concurrency) == (True, 1.5, 3)
    assert (resolver.cache_ttl_s, resolver.negative_cache_ttl_s) == (60.0, 60.0)
    assert RedirectResolver(settings, timeout_s=0.5, enabled=False).timeout_s == 0.5
    assert RedirectResolver(settings, enabled=False).enabled is False


def test_defaults_match_the_settings_defaults() -> None:
    """A resolver built by hand is on and uses the documented default limits."""
    resolver = RedirectResolver()
    assert resolver.enabled is True
    assert (resolver.timeout_s, resolver.max_concurrency, resolver.cache_ttl_s) == (2.0, 8, 3600.0)
    assert resolver.negative_cache_ttl_s == 300.0


@pytest.mark.parametrize("options", [{"timeout_s": 0.0}, {"max_concurrency": 0}])
def test_unbounded_limits_are_refused_at_construction(options: dict[str, float]) -> None:
    """A zero timeout (no timeout to aiohttp) or zero concurrency is a configuration error."""
    with pytest.raises(ValueError, match="timeout_s > 0"):
        RedirectResolver(**options)  # type: ignore[arg-type]


def test_sync_entry_point_outside_a_loop(redirector, make_resolver) -> None:
    """resolve_many_sync works from plain synchronous code."""
    url = redirector.redirect("bbc", "https://www.bbc.co.uk/")
    assert make_resolver().resolve_many_sync([url]) == {url: "https://www.bbc.co.uk"}


@pytest.mark.asyncio
async def test_sync_entry_point_inside_a_running_loop(redirector, make_resolver) -> None:
    """resolve_many_sync also works when called by sync code running inside an event loop."""
    url = redirector.redirect("bbc", "https://www.bbc.co.uk/")
    asyncio.get_running_loop()
    assert make_resolver().resolve_many_sync([url]) == {url: "https://www.bbc.co.uk"}
