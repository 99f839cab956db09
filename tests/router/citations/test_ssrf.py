"""The RedirectResolver's SSRF suite, from ``tests/data/ssrf_targets.json``.

Every target (loopback v4 and v6, private and shared ranges, link-local and the metadata
service, unspecified, multicast and reserved addresses, decimal/octal/hex and short IPv4 forms,
IPv4-mapped and other embedding IPv6 forms, names whose DNS answers are any of those) is refused
both as the redirector a URL names and as the ``Location`` a redirector answers with. DNS comes
from the table in the data file, and a connection spy on the event loop records every connection
attempt and lets only the loopback test redirector through: a refused target is never even
attempted. Locations are reported, never followed; silent redirectors and silent DNS are bounded
by the resolver's timeout; and a route with ``resolve_redirects=True`` still answers, with the
domains the title and domain fields give.
"""

from __future__ import annotations

import asyncio
import json
import socket
from asyncio.selector_events import BaseSelectorEventLoop
from pathlib import Path
from typing import Any

import pytest

from router.call_limits import CallLimits, limits_scope
from router.citations import RedirectResolver, normalize_url
from router.citations.urls import split_canonical_url
from router.emulator import Emulator
from router.router import UnifiedLLMAdapter
from support.emulated import emulator_settings, grounded_request

SSRF: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "data" / "ssrf_targets.json").read_text(encoding="utf-8")
)
TARGETS: list[dict[str, Any]] = SSRF["targets"]
AS_REDIRECTOR = [row for row in TARGETS if "redirector" in row["sides"]]
AS_LOCATION = [row for row in TARGETS if "location" in row["sides"]]
CHAINED: list[dict[str, Any]] = SSRF["chained"]
ROUTE_ANSWERS: list[dict[str, Any]] = SSRF["route_answers"]
VERTEX_REDIRECTOR = "vertexaisearch.cloud.google.com"


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["id"] for row in rows]


class TableLookup:
    """DNS from a table: a list answers, None never answers, a missing name does not exist."""

    def __init__(self, table: dict[str, list[str] | None]) -> None:
        self.table = table
        self.asked: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        del port
        self.asked.append(host)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        answer = self.table[host]
        if answer is None:
            await asyncio.Event().wait()  # a name server that never answers
        return list(answer or [])


class ConnectionSpy:
    """Every address an event loop is asked to connect to; only ``allowed`` ones get through."""

    def __init__(self) -> None:
        self.attempts: list[tuple[str, int]] = []
        self.allowed: set[tuple[str, int]] = set()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = BaseSelectorEventLoop.sock_connect

        async def spy(loop: BaseSelectorEventLoop, sock: socket.socket, address: Any) -> None:
            target = (str(address[0]), int(address[1]))
            self.attempts.append(target)
            if target not in self.allowed:
                raise ConnectionRefusedError(f"the test refuses connections to {target}")
            await original(loop, sock, address)

        monkeypatch.setattr(BaseSelectorEventLoop, "sock_connect", spy)

    def others(self) -> list[tuple[str, int]]:
        return [attempt for attempt in self.attempts if attempt not in self.allowed]


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> ConnectionSpy:
    watcher = ConnectionSpy()
    watcher.install(monkeypatch)
    return watcher


@pytest.fixture
def lookup() -> TableLookup:
    return TableLookup(SSRF["dns"])


def _host(url: str) -> str:
    canonical = normalize_url(url)
    assert canonical is not None
    parts = split_canonical_url(canonical)
    assert parts is not None
    return parts.host


async def test_spy_sees_the_connections_it_refuses(spy: ConnectionSpy, lookup: TableLookup) -> None:
    """The control: a public redirector is attempted (and refused by the spy, not the network)."""
    resolver = RedirectResolver(allowed_hosts=["public.ssrf.test"], timeout_s=2.0, _lookup=lookup)
    assert await resolver.resolve("http://public.ssrf.test/r/x") is None
    assert spy.attempts == [("93.184.216.34", 80)]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("row", AS_REDIRECTOR, ids=_ids(AS_REDIRECTOR))
async def test_redirector_on_a_forbidden_address_is_never_contacted(
    row: dict[str, Any], spy: ConnectionSpy, lookup: TableLookup
) -> None:
    """Even allow-listed, a redirector at a non-public address gets no connection attempt."""
    resolver = RedirectResolver(allowed_hosts=[_host(row["url"])], timeout_s=2.0, _lookup=lookup)
    assert await resolver.resolve(row["url"]) is None
    assert spy.attempts == []


@pytest.mark.timeout(20)
@pytest.mark.parametrize("row", AS_LOCATION, ids=_ids(AS_LOCATION))
async def test_location_pointing_inward_is_refused(
    row: dict[str, Any], redirector: Any, spy: ConnectionSpy, lookup: TableLookup
) -> None:
    """A redirect to a forbidden target gives None; only the redirector itself was contacted."""
    spy.allowed.add(("127.0.0.1", redirector.port))
    url = redirector.redirect("inward", row["url"])
    resolver = RedirectResolver(
        allowed_hosts=["127.0.0.1"], timeout_s=2.0, _allow_loopback=True, _lookup=lookup
    )
    assert await resolver.resolve(url) is None
    assert redirector.hits == ["inward"]
    assert spy.others() == []


@pytest.mark.timeout(20)
@pytest.mark.parametrize("row", CHAINED, ids=_ids(CHAINED))
async def test_chained_redirects_are_reported_never_followed(
    row: dict[str, Any], redirector: Any, spy: ConnectionSpy, lookup: TableLookup
) -> None:
    """One hop at most: a Location that redirects again is not requested."""
    spy.allowed.add(("127.0.0.1", redirector.port))
    location = redirector.url("first") if row["url"] == "SELF" else row["url"]
    url = redirector.redirect("first", location)
    resolver = RedirectResolver(
        allowed_hosts=["127.0.0.1", VERTEX_REDIRECTOR],
        timeout_s=2.0,
        _allow_loopback=True,
        _lookup=lookup,
    )
    target = await resolver.resolve(url)
    assert target in (None, normalize_url(location))
    assert redirector.hits == ["first"]
    assert spy.others() == []


@pytest.mark.timeout(20)
async def test_silent_redirector_is_bounded_by_the_timeout(
    redirector: Any, spy: ConnectionSpy, lookup: TableLookup
) -> None:
    """A redirector that never answers costs one timeout, then None."""
    spy.allowed.add(("127.0.0.1", redirector.port))
    resolver = RedirectResolver(
        allowed_hosts=["127.0.0.1"], timeout_s=0.3, _allow_loopback=True, _lookup=lookup
    )
    assert await resolver.resolve(redirector.redirect("hang", "https://example.com/")) is None


@pytest.mark.timeout(20)
async def test_silent_name_server_is_bounded_by_the_timeout(spy: ConnectionSpy) -> None:
    """A DNS lookup that never returns costs one timeout, then None, and no connection."""
    lookup = TableLookup({"silent.ssrf.test": None})
    resolver = RedirectResolver(allowed_hosts=["silent.ssrf.test"], timeout_s=0.3, _lookup=lookup)
    assert await resolver.resolve("https://silent.ssrf.test/r/x") is None
    assert lookup.asked == ["silent.ssrf.test"]
    assert spy.attempts == []


def _evidence(response: Any) -> list[tuple[Any, ...]]:
    return [(c["url"], c["source_domain"], c["raw"].get("redirect")) for c in response.citations]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("call", ["route", "aroute"])
@pytest.mark.parametrize("answer", ROUTE_ANSWERS, ids=_ids(ROUTE_ANSWERS))
def test_route_with_resolution_on_still_answers_from_the_fallback(
    answer: dict[str, Any], call: str, emulator: Emulator, spy: ConnectionSpy
) -> None:
    """Google's redirector resolving inward (or never): the answer keeps the title domains."""
    spy.allowed.add(("127.0.0.1", emulator.port))  # the async SDK client reaches the emulator
    question = f"How high is the Zugspitze? ({answer['id']}, {call})"
    with UnifiedLLMAdapter(emulator_settings(emulator)) as plain:
        expected = _evidence(plain.route(grounded_request("vertex", question, mode="REQUIRED")))
    lookup = TableLookup({VERTEX_REDIRECTOR: answer["addresses"]})
    settings = emulator_settings(emulator, resolve_redirects=True, resolver_timeout_s=0.3)
    resolver = RedirectResolver(settings, _lookup=lookup)
    router = UnifiedLLMAdapter(settings, resolver=resolver)
    request = grounded_request("vertex", question, mode="REQUIRED")
    with router:
        response = router.route(request) if call == "route" else asyncio.run(router.aroute(request))
    assert _evidence(response) == expected
    assert any(domain != "google.com" for _, domain, _ in expected)
    assert lookup.asked  # the resolver did try, and was refused
    assert spy.others() == []


@pytest.mark.timeout(20)
async def test_many_silent_redirectors_end_at_the_call_deadline(
    redirector: Any, spy: ConnectionSpy, lookup: TableLookup
) -> None:
    """Forty links, one at a time, to a redirector that never answers end with the call's
    deadline (0.5 s), not after forty resolver timeouts."""
    spy.allowed.add(("127.0.0.1", redirector.port))
    redirector.gate_at = 1_000  # every request waits for 1,000 in flight: none ever answers
    resolver = RedirectResolver(
        allowed_hosts=["127.0.0.1"],
        timeout_s=2.0,
        max_concurrency=1,
        _allow_loopback=True,
        _lookup=lookup,
    )
    links = [redirector.redirect(f"slow-{n}", "https://example.com/") for n in range(40)]
    with limits_scope(CallLimits(0.5)):
        assert await resolver.resolve_many(links) == {}
    assert len(redirector.hits) < len(links)
