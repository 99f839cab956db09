"""The terminal block: [n] markers, numbered sources with whole URLs, OSC 8 links."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from rich.console import Console

from router.cli import main
from router.render.terminal_block import links_supported, print_answer_block
from router.render.view import safe_href
from support.hostile import unsafe_characters
from support.recorded import recorded_files
from support.report_samples import grounded_response, hostile_response, spans_only_response

SGR = re.compile(r"\x1b\[[0-9;]*m")
OSC8 = re.compile(r"\x1b\]8;([^;\x1b\x07]*);([^\x1b\x07]*)\x1b\\")
LONG_URL = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/" + "AbCdEf0123" * 30
GEMINI_SSE = recorded_files("pydantic-ai/gemini25pro_weather_grounding_stream.sse.txt")[0]


def _render(response: dict[str, Any], *, width: int, links: bool) -> str:
    out = io.StringIO()
    console = Console(
        file=out,
        width=width,
        force_terminal=links,
        color_system="standard" if links else None,
        highlight=False,
    )
    print_answer_block(console, response, links=links)
    return out.getvalue()


def _plain(output: str) -> str:
    return OSC8.sub("", SGR.sub("", output))


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("links", [True, False])
def test_markers_follow_each_attribution(width: int, links: bool) -> None:
    """Each cited place ends with the numbers of its sources, each once, in source order."""
    plain = " ".join(_plain(_render(grounded_response(), width=width, links=links)).split())
    assert "2,962 m high.[1] It lies" in plain
    assert "Bavaria and Tyrol.[1][2] A rack" in plain
    assert "A rack railway climbs it[3] — and" in plain


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("links", [True, False])
def test_every_url_is_whole_on_its_own_line(width: int, links: bool) -> None:
    """A 300-character URL is printed uncut on one line, whatever the width."""
    response = grounded_response()
    response["citations"][2]["url"] = LONG_URL
    lines = _plain(_render(response, width=width, links=links)).splitlines()
    for citation in response["citations"]:
        assert f"    {citation['url']}" in lines


@pytest.mark.parametrize("width", [80, 120])
def test_sources_show_domain_cited_redirect_passage_and_verdicts(width: int) -> None:
    """Each source says its domain, cited or searched only, redirect, passage and verdicts."""
    plain = _plain(_render(grounded_response(), width=width, links=False))
    assert "    wikipedia.org · cited · supported 1, unsupported 1" in plain
    assert "    zugspitze.de · cited · unsupported 1" in plain
    assert "    bergfex.com · cited · redirect · unknown 1" in plain
    assert "    example.org · searched only" in plain
    assert '    > "on the border between Bavaria and Tyrol"' in plain
    assert "verification: coverage 81% · support rate 50% · supported 1, unsupported 1" in plain


def test_spans_stand_in_for_attributions_in_older_files() -> None:
    """A response saved before attributions existed gets its markers from the citation spans."""
    plain = " ".join(_plain(_render(spans_only_response(), width=120, links=False)).split())
    assert "2,962 m high.[1]" in plain
    assert "Bavaria and Tyrol[2]." in plain
    assert "verification" not in plain


@pytest.mark.parametrize("width", [80, 120])
def test_titles_link_to_their_urls_only_when_asked(width: int) -> None:
    """With links each title is an OSC 8 link to its URL; without, no OSC sequence at all."""
    response = grounded_response()
    linked = _render(response, width=width, links=True)
    targets = [url for _, url in OSC8.findall(linked) if url]
    assert targets == [citation["url"] for citation in response["citations"]]
    assert "\x1b]" not in _render(response, width=width, links=False)


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("links", [True, False])
def test_hostile_strings_reach_the_terminal_inert(width: int, links: bool) -> None:
    """Only rich's colours and the renderer's own links to http(s) URLs are escape sequences."""
    response = hostile_response()
    output = _render(response, width=width, links=links)
    allowed = {safe_href(c["url"].replace("\x1b]0;title\x07", "")) for c in response["citations"]}
    for _, url in OSC8.findall(output):
        assert url == "" or url in allowed
        assert url == "" or url.startswith("https://")
    assert unsafe_characters(_plain(output)) == []
    assert "forged link" in output
    assert "evil.example/\x1b" not in output


def test_links_are_automatic_only_on_a_capable_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Auto links need a terminal with colours that is not a dumb one; on and off are obeyed."""
    piped = Console(file=io.StringIO())
    terminal = Console(file=io.StringIO(), force_terminal=True, color_system="standard")
    monkeypatch.setenv("TERM", "xterm-256color")
    assert not links_supported(piped)
    assert links_supported(terminal)
    assert links_supported(piped, "on")
    assert not links_supported(terminal, "off")
    monkeypatch.setenv("TERM", "dumb")
    assert not links_supported(terminal)


def test_extract_prints_markers_and_whole_urls(capsys: pytest.CaptureFixture[str]) -> None:
    """``extract`` of a recorded Gemini stream prints markers and each whole URL, no escapes."""
    assert main(["extract", str(GEMINI_SSE), "--vendor", "vertex", "--no-links"]) == 0
    out = capsys.readouterr().out
    assert "[1]" in out
    assert "\x1b" not in out
    assert any(line.startswith("    https://") and "…" not in line for line in out.splitlines())


def test_extract_with_links_writes_osc8_even_to_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    """``--links`` forces the hyperlinks (and colours) on, for a terminal rich cannot detect."""
    assert main(["extract", str(GEMINI_SSE), "--vendor", "vertex", "--links"]) == 0
    out = capsys.readouterr().out
    assert [url for _, url in OSC8.findall(out) if url]
    assert all(url.startswith("https://") for _, url in OSC8.findall(out) if url)
