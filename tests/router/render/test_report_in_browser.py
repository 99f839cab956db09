"""The HTML report opened in headless Chromium with the network off, read through its DOM."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from router.render.html import write_report
from router.render.report_input import ReportRow, rows_from_record
from router.render.view import attributions_of
from support.chromium import CHROMIUM, MISSING_CHROMIUM, Page, chromium_page
from support.report_samples import (
    CANARY,
    batch_rows,
    grounded_response,
    hostile_response,
    spans_only_response,
)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=MISSING_CHROMIUM)

SHOWN_ROWS = (
    "[...document.querySelectorAll('article.row')].map(r => [r.dataset.vendor, r.dataset.status])"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Page]:
    with chromium_page() as page:
        yield page


def _rows(*records: dict[str, Any]) -> list[ReportRow]:
    return [row for record in records for row in rows_from_record(record)[1]]


def _open(browser: Page, tmp_path: Path, rows: list[ReportRow], name: str = "report.html") -> Path:
    path = tmp_path / name
    path.write_text(write_report(rows, title="test report"), encoding="utf-8")
    browser.errors.clear()
    browser.requests.clear()
    browser.open(path)
    assert browser.evaluate("document.body.dataset.ready") == "true"
    return path


def _marks(browser: Page) -> list[dict[str, Any]]:
    return browser.evaluate(
        """[...document.querySelectorAll('article.row')].map(row => [...row.querySelectorAll(
        'mark.attr')].map(mark => ({start: +mark.dataset.start, end: +mark.dataset.end,
        attributions: mark.dataset.attributions.split(' ').map(Number),
        text: mark.textContent})))"""
    )


def _covered(marks: list[dict[str, Any]], index: int) -> list[tuple[int, int]]:
    """The ranges the marks of one attribution cover, adjacent ranges joined."""
    ranges: list[tuple[int, int]] = []
    for mark in marks:
        if index in mark["attributions"]:
            if ranges and ranges[-1][1] == mark["start"]:
                ranges[-1] = (ranges[-1][0], mark["end"])
            else:
                ranges.append((mark["start"], mark["end"]))
    return ranges


@pytest.mark.parametrize("make", [grounded_response, spans_only_response])
def test_highlights_equal_the_attributions(browser: Page, tmp_path: Path, make: Any) -> None:
    """Each attribution is highlighted over exactly its characters, and nothing else is."""
    response = make()
    _open(browser, tmp_path, _rows(response))
    (marks,) = _marks(browser)
    attributions = attributions_of(response)
    assert attributions
    for index, attribution in enumerate(attributions):
        assert _covered(marks, index) == [(attribution["start"], attribution["end"])]
        text = "".join(m["text"] for m in marks if index in m["attributions"])
        assert text == response["content"][attribution["start"] : attribution["end"]]
    assert all(mark["attributions"] for mark in marks)
    assert browser.errors == []


def test_source_links_point_at_the_citation_urls(browser: Page, tmp_path: Path) -> None:
    """Every source's link has the citation's URL as its href, in citation order."""
    response = grounded_response()
    _open(browser, tmp_path, _rows(response))
    hrefs = browser.evaluate(
        "[...document.querySelectorAll('li.source a.source-title')]"
        ".map(a => a.getAttribute('href'))"
    )
    assert hrefs == [citation["url"] for citation in response["citations"]]
    urls = browser.evaluate(
        "[...document.querySelectorAll('li.source .url')].map(e => e.textContent)"
    )
    assert urls == hrefs


def test_clicking_a_highlight_shows_source_passage_and_verdict(
    browser: Page, tmp_path: Path
) -> None:
    """A click on the second sentence shows both its sources, the passage and the verdict."""
    _open(browser, tmp_path, _rows(grounded_response()))
    detail = browser.evaluate(
        """(() => { const mark = [...document.querySelectorAll('mark.attr')]
        .find(m => m.textContent.includes('Bavaria')); mark.click();
        const detail = document.querySelector('.detail');
        return {hidden: detail.hidden, text: detail.textContent,
                active: [...document.querySelectorAll('li.source.active')]
                    .map(e => e.dataset.source)}; })()"""
    )
    assert detail["hidden"] is False
    assert "on the border between Bavaria and Tyrol" in detail["text"]
    assert "Zugspitze: Top of Germany" in detail["text"]
    assert "unsupported" in detail["text"]
    assert detail["active"] == ["1", "2"]


def test_filters_and_search_change_what_is_shown(browser: Page, tmp_path: Path) -> None:
    """Choosing a vendor, a status or typing a search shows only the rows that match."""
    rows = _rows(*batch_rows(120))
    _open(browser, tmp_path, rows)
    shown = SHOWN_ROWS
    assert len(browser.evaluate(shown)) == 50
    assert "of 120" in browser.evaluate("document.getElementById('shown').textContent")
    choose = """(() => {{ const select = document.getElementById('{}'); select.value = '{}';
        select.dispatchEvent(new Event('change')); }})()"""
    browser.evaluate(choose.format("filter-vendor", "anthropic"))
    after_vendor = browser.evaluate(shown)
    assert after_vendor
    assert {vendor for vendor, _ in after_vendor} == {"anthropic"}
    assert len(after_vendor) == sum(1 for row in rows if row.vendor == "anthropic")
    browser.evaluate(choose.format("filter-status", "failed"))
    failed = browser.evaluate(shown)
    assert failed
    assert set(map(tuple, failed)) == {("anthropic", "failed")}
    browser.evaluate(choose.format("filter-vendor", ""))
    browser.evaluate(choose.format("filter-status", ""))
    browser.evaluate(
        """(() => { const box = document.getElementById('filter-search'); box.value = 'ROW-00007';
        box.dispatchEvent(new Event('input')); })()"""
    )
    assert browser.evaluate(
        "[...document.querySelectorAll('.row-id')].map(e => e.textContent)"
    ) == ["row-00007"]
    assert browser.errors == []


def test_pages_step_through_every_row(browser: Page, tmp_path: Path) -> None:
    """Next and previous walk the pages; the last page holds the remaining rows."""
    _open(browser, tmp_path, _rows(*batch_rows(120)))
    ids = "[...document.querySelectorAll('.row-id')].map(e => e.textContent)"
    browser.evaluate("document.getElementById('page-next').click()")
    browser.evaluate("document.getElementById('page-next').click()")
    assert browser.evaluate(ids) == [f"row-{n:05d}" for n in range(100, 120)]
    assert browser.evaluate("document.getElementById('page-next').disabled") is True
    browser.evaluate("document.getElementById('page-prev').click()")
    assert browser.evaluate(ids)[0] == "row-00050"


def test_failed_rows_show_their_reason(browser: Page, tmp_path: Path) -> None:
    """A failed row names its error type, reason and message."""
    _open(browser, tmp_path, _rows(*batch_rows(5)))
    text = browser.evaluate(
        "document.querySelector('article[data-status=failed] .error').textContent"
    )
    assert text == "GroundingRequiredFailedError (no_citations): the model did not search"


def test_the_page_fetches_nothing_and_logs_no_error(browser: Page, tmp_path: Path) -> None:
    """Only the file itself is requested, and the console stays clean (CSP hashes match)."""
    path = _open(browser, tmp_path, _rows(*batch_rows(30)))
    assert browser.requests == [path.resolve().as_uri()]
    assert browser.errors == []


def test_hostile_strings_run_nothing_and_break_nothing(browser: Page, tmp_path: Path) -> None:
    """Injected markup stays text: no canary set, no extra element, no script URL, layout kept."""
    rows = _rows(hostile_response(), grounded_response("after-hostile"))
    _open(browser, tmp_path, rows)
    page = browser.evaluate(
        f"""(() => ({{
        canary: typeof window.{CANARY},
        scripts: document.scripts.length,
        injected: document.querySelectorAll('img, svg [onload], iframe, object, embed, style')
            .length,
        handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes]
            .some(a => a.name.startsWith('on'))).length,
        hrefs: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
        rows: document.querySelectorAll('article.row').length,
        bodyVisible: getComputedStyle(document.body).display,
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        titleText: document.querySelector('li.source a, li.source span.source-title').textContent
                .slice(0, 40),
        rowIds: [...document.querySelectorAll('.row-id')].map(e => e.textContent),
      }}))()"""
    )
    for _ in range(3):
        browser.evaluate("document.querySelectorAll('mark.attr').forEach(m => m.click())")
    assert browser.evaluate(f"typeof window.{CANARY}") == "undefined"
    assert page["canary"] == "undefined"
    assert page["scripts"] == 2
    assert page["injected"] == 1  # the page's own style sheet
    assert page["handlers"] == 0
    assert all(href.startswith("https://") for href in page["hrefs"])
    assert page["rows"] == 2
    assert page["bodyVisible"] == "block"
    assert page["overflow"] <= 0
    assert page["titleText"].startswith("<script>window.")
    assert page["rowIds"][1] == "after-hostile"
    assert browser.errors == []


def _png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered RGB(A) rows of an 8-bit PNG (stdlib zlib only)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, data, header = 8, b"", b""
    while position < len(png):
        length = int.from_bytes(png[position : position + 4], "big")
        kind = png[position + 4 : position + 8]
        body = png[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            data += body
        position += 12 + length
    width, height = int.from_bytes(header[0:4], "big"), int.from_bytes(header[4:8], "big")
    channels = {2: 3, 6: 4}[header[9]]
    raw = zlib.decompress(data)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (
                    line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)
                ) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def test_a_screenshot_of_the_report_is_not_blank(browser: Page, tmp_path: Path) -> None:
    """The rendered page has ink on it: many pixels differ from the background, in colours."""
    _open(browser, tmp_path, _rows(*batch_rows(12)))
    width, height, rows = _png_pixels(browser.screenshot())
    assert width == 1200
    assert height > 400
    background = rows[0][0:3]
    channels = len(rows[0]) // width
    inked = sum(
        1 for row in rows for x in range(0, len(row), channels) if row[x : x + 3] != background
    )
    colours = {row[x : x + 3] for row in rows[::10] for x in range(0, len(row), channels * 10)}
    assert inked > width * height // 50
    assert len(colours) > 8


def test_a_compare_file_shows_each_provider(browser: Page, tmp_path: Path) -> None:
    """A compare --json file gives one row per provider, a failure included."""
    compare = {
        "providers": {
            "openai": {"ok": True, "response": grounded_response("q", "openai")},
            "vertex": {
                "ok": False,
                "error": {"type": "ProviderError", "message": "down", "reason": "server_error"},
            },
        },
        "aggregate": {},
    }
    source = tmp_path / "compare.json"
    source.write_text(json.dumps(compare, indent=2), encoding="utf-8")
    from router.render.html import write_report_file

    target = tmp_path / "compare.html"
    write_report_file(source, target)
    browser.open(target)
    rows = browser.evaluate(SHOWN_ROWS)
    assert rows == [["openai", "ok"], ["vertex", "failed"]]
