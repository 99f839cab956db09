"""Redirect resolution for every provider: the pure step, and the router with the real SDKs.

The router resolves the redirect links of any adapter's citations when ``resolve_redirects`` is
on; here a loopback redirector stands in for ``t.co``, ``lnkd.in`` and Vertex's
``grounding-api-redirect`` (the resolver's test-only loopback allowance, and a table DNS).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from router.citations import make_citation
from router.citations.redirects import RedirectResolver
from router.citations.resolution import redirect_link_urls, with_resolved_redirects
from router.emulator import Emulator
from router.router import UnifiedLLMAdapter
from router.types import Attribution, Citation
from support.emulated import emulator_settings, grounded_request

VERTEX_HOST = "vertexaisearch.cloud.google.com"
DNS = {
    "t.co": ["127.0.0.1"],
    "lnkd.in": ["127.0.0.1"],
    VERTEX_HOST: ["127.0.0.1"],
    "www.bbc.co.uk": ["151.101.0.81"],
    "en.wikipedia.org": ["185.15.59.224"],
    "www.nytimes.com": ["151.101.1.164"],
}


async def table_lookup(host: str, port: int) -> list[str]:
    del port
    if host not in DNS:
        raise OSError(f"no address for {host}")
    return DNS[host]


def _citation(url: str, rank: int, **extra: Any) -> Citation:
    citation = make_citation(provider="openai", url=url, rank=rank, **extra)
    assert citation is not None
    return citation


def test_resolved_link_takes_the_targets_url_domain_and_type() -> None:
    """A resolved t.co link becomes the end site's citation, normalised, without redirect flags."""
    link = _citation("https://t.co/AbC123", 1, raw={"type": "url_citation"}, cited=True)
    target = "https://www.bbc.co.uk/news/world-1?utm_source=twitter&si=x"
    (resolved,) = with_resolved_redirects([link], {"https://t.co/AbC123": target})
    assert resolved["url"] == "https://www.bbc.co.uk/news/world-1?si=x"
    assert resolved["source_domain"] == "bbc.co.uk"
    assert resolved["source_type"] == "news"
    assert resolved["raw"] == {"type": "url_citation"}
    assert resolved["cited"] is True
    assert link["url"] == "https://t.co/AbC123"  # the given citation is untouched


def test_links_leading_to_one_page_merge() -> None:
    """Two shortener links to the same page merge into the earliest-ranked citation."""
    first = _citation("https://bit.ly/one", 1)
    second = _citation("https://lnkd.in/two", 2, title="The article")
    page = "https://en.wikipedia.org/wiki/Ruby"
    merged = with_resolved_redirects(
        [first, second], {"https://bit.ly/one": page, "https://lnkd.in/two": page + "#history"}
    )
    assert [(c["rank"], c["url"], c["title"]) for c in merged] == [(1, page, "The article")]


def test_unresolved_links_keep_their_flags() -> None:
    """Links the resolver had no answer for stay as they were."""
    citations = [_citation("https://t.co/x", 1), _citation("https://example.com/a", 2)]
    assert redirect_link_urls(citations) == ["https://t.co/x"]
    assert with_resolved_redirects(citations, {}) is citations
    assert with_resolved_redirects(citations, {"https://t.co/other": "https://a.example.com"}) == (
        citations
    )


def test_a_target_that_is_itself_a_redirect_is_not_taken() -> None:
    """A shortener leading to another shortener teaches nothing: the citation is unchanged."""
    citations = [_citation("https://t.co/x", 1)]
    assert with_resolved_redirects(citations, {"https://t.co/x": "https://bit.ly/y"}) == citations


def _openai_body(links: dict[str, str]) -> dict[str, Any]:
    text = "Ruby 3.4 is out."
    return {
        "id": "resp_resolve",
        "object": "response",
        "status": "completed",
        "model": "gpt-5",
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "ruby release",
                    "sources": [{"type": "url", "url": links["lnkd.in"]}],
                },
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": text,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": links["t.co"],
                                "title": "Ruby news",
                                "start_index": 0,
                                "end_index": len(text),
                            }
                        ],
                    }
                ],
            },
        ],
    }


def _vertex_body(link: str) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "It is sunny."}]},
                "groundingMetadata": {
                    "webSearchQueries": ["weather"],
                    "groundingChunks": [{"web": {"uri": link, "title": "nytimes.com"}}],
                },
            }
        ]
    }


@pytest.mark.parametrize("call", ["route", "aroute"])
@pytest.mark.parametrize("vendor", ["openai", "vertex"])
def test_router_resolves_every_providers_redirect_links(
    vendor: str, call: str, emulator: Emulator, redirector: Any
) -> None:
    """With resolve_redirects on, OpenAI's t.co and lnkd.in links and Vertex's redirect links
    all end as the end site's citation."""
    redirector.redirect("tco", "https://www.bbc.co.uk/news/articles/c1?utm_source=twitter")
    redirector.redirect("li", "https://en.wikipedia.org/wiki/Ruby_(programming_language)")
    redirector.redirect("vx", "https://www.nytimes.com/2026/01/02/world/story.html?utm_source=v")
    port = redirector.port
    if vendor == "openai":
        links = {"t.co": f"http://t.co:{port}/r/tco", "lnkd.in": f"http://lnkd.in:{port}/r/li"}
        body = _openai_body(links)
        expected = [
            ("https://www.bbc.co.uk/news/articles/c1", "bbc.co.uk"),
            ("https://en.wikipedia.org/wiki/Ruby_(programming_language)", "wikipedia.org"),
        ]
    else:
        body = _vertex_body(f"http://{VERTEX_HOST}:{port}/grounding-api-redirect/vx")
        expected = [("https://www.nytimes.com/2026/01/02/world/story.html", "nytimes.com")]
    emulator.enqueue_reply(vendor, json.dumps(body).encode())
    settings = emulator_settings(emulator, resolve_redirects=True)
    resolver = RedirectResolver(settings, _allow_loopback=True, _lookup=table_lookup)
    request = grounded_request(vendor, f"Resolve ({vendor}, {call})")
    with UnifiedLLMAdapter(settings, resolver=resolver) as router:
        response = router.route(request) if call == "route" else asyncio.run(router.aroute(request))
    assert [(c["url"], c["source_domain"]) for c in response.citations] == expected
    assert not any(c["raw"].get("redirect") for c in response.citations)
    assert response.metadata["citations"] == response.citations


def test_router_leaves_links_alone_while_resolution_is_off(
    emulator: Emulator, redirector: Any
) -> None:
    """resolve_redirects off: the resolver is never asked, the links stay redirect links."""
    redirector.redirect("tco", "https://www.bbc.co.uk/news")
    links = {
        "t.co": f"http://t.co:{redirector.port}/r/tco",
        "lnkd.in": f"http://lnkd.in:{redirector.port}/r/li",
    }
    emulator.enqueue_reply("openai", json.dumps(_openai_body(links)).encode())
    settings = emulator_settings(emulator)
    resolver = RedirectResolver(settings, enabled=True, _allow_loopback=True, _lookup=table_lookup)
    with UnifiedLLMAdapter(settings, resolver=resolver) as router:
        response = router.route(grounded_request("openai", "Resolution off"))
    assert {c["source_domain"] for c in response.citations} == {"t.co", "lnkd.in"}
    assert redirector.hits == []


@pytest.mark.parametrize("call", ["stream", "astream"])
def test_streamed_answers_end_with_resolved_citations(
    call: str, emulator: Emulator, redirector: Any
) -> None:
    """A stream's Completed response carries the resolved citations, as route() does."""
    redirector.redirect("vx", "https://www.nytimes.com/2026/01/02/world/story.html")
    body = _vertex_body(f"http://{VERTEX_HOST}:{redirector.port}/grounding-api-redirect/vx")
    body["candidates"][0]["finishReason"] = "STOP"
    sse = f"data: {json.dumps(body)}\r\n\r\n".encode()
    emulator.enqueue_reply("vertex", sse, content_type="text/event-stream")
    settings = emulator_settings(emulator, resolve_redirects=True)
    resolver = RedirectResolver(settings, _allow_loopback=True, _lookup=table_lookup)
    request = grounded_request("vertex", f"Resolve a stream ({call})")

    async def collect(router: UnifiedLLMAdapter) -> list[Any]:
        return [event async for event in router.astream(request)]

    with UnifiedLLMAdapter(settings, resolver=resolver) as router:
        events = list(router.stream(request)) if call == "stream" else asyncio.run(collect(router))
    response = events[-1].response
    assert [(c["url"], c["source_domain"]) for c in response.citations] == [
        ("https://www.nytimes.com/2026/01/02/world/story.html", "nytimes.com")
    ]


def test_links_merged_by_resolution_keep_their_attributions_pointing_at_the_merged_citation() -> (
    None
):
    """Two links that lead to one page merge: attributions are re-pointed, none dropped."""
    first = _citation("https://t.co/One", 1, cited=True)
    other = _citation("https://www.nytimes.com/a", 2, cited=True)
    second = _citation("https://lnkd.in/Two", 3, cited=True)
    attributions: list[Attribution] = [
        {
            "start": start,
            "end": start + 1,
            "text": "x",
            "citation": index,
            "cited_text": passage,
            "location": None,
            "confidence": None,
        }
        for start, index, passage in ((0, 0, "one"), (2, 1, "nyt"), (4, 2, "two"))
    ]
    target = "https://www.bbc.co.uk/news/world-1"
    merged = with_resolved_redirects(
        [first, other, second],
        {"https://t.co/One": target, "https://lnkd.in/Two": target},
        attributions,
    )
    assert [c["url"] for c in merged] == [target, "https://www.nytimes.com/a"]
    assert [(a["citation"], a["cited_text"]) for a in attributions] == [
        (0, "one"),
        (1, "nyt"),
        (0, "two"),
    ]
