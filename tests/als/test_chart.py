"""The ALS chart: a PNG that opens, is not blank, shows the own-ccTLD colour, grows with groups."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from als.chart import INSTALL_HINT, OWN_COLOUR, ChartsUnavailableError, write_chart
from als.report import ALSReport, build_report
from support.charts import colour_counts, hide_matplotlib

BATCH = Path(__file__).parents[1] / "data" / "als" / "batch_output.jsonl"
COUNTRIES = ["DE", "GB", "FR", "US", "RU", "JP", "BR", "IN", "ES", "IT", "NL", "PL"]


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _own_colour_bands(path: Path) -> int:
    """How many separate horizontal bands of the image hold the own-ccTLD colour."""
    own = _rgb(OWN_COLOUR)
    with Image.open(path) as image:
        rgb = image.convert("RGB")
        width, height = rgb.size
        pixels = rgb.load()
        assert pixels is not None
        rows = [any(pixels[x, y] == own for x in range(0, width, 2)) for y in range(height)]
    return sum(1 for y in range(height) if rows[y] and (y == 0 or not rows[y - 1]))


def _twelve_groups() -> ALSReport:
    rows: list[dict[str, Any]] = []
    for country in COUNTRIES:
        own = f"news.{country.lower()}" if country != "GB" else "bbc.co.uk"
        citations = [
            {"source_domain": own},
            {"source_domain": own},
            {"source_domain": "reuters.com"},
            {"source_domain": "wikipedia.org"},
            {"source_domain": "google.com", "raw": {"redirect": True}},
        ]
        rows.append(
            {
                "ok": True,
                "request": {
                    "vendor": "vertex",
                    "model": "gemini-2.5-flash",
                    "user_location": {"country": country},
                },
                "response": {"citations": citations},
            }
        )
    return build_report(rows)


def test_chart_of_one_group_opens(tmp_path: Path) -> None:
    """A one-group chart is a readable PNG with the own-ccTLD colour and many other colours."""
    path = write_chart(build_report(BATCH, by=["country"]), tmp_path / "als.png")
    with Image.open(path) as image:
        assert image.format == "PNG"
        width, height = image.size
    assert width >= 1000
    assert height >= 300
    colours = colour_counts(path)
    assert len(colours) > 50  # bars, text and anti-aliasing, not a blank canvas
    assert colours.get(_rgb(OWN_COLOUR), 0) > 1000


def test_chart_grows_with_groups(tmp_path: Path) -> None:
    """Twelve groups give a taller chart than one, with an own-ccTLD segment in every bar."""
    one = write_chart(build_report(BATCH, by=()), tmp_path / "one.png")
    twelve = write_chart(_twelve_groups(), tmp_path / "twelve.png")
    with Image.open(one) as small, Image.open(twelve) as large:
        assert large.size[0] == small.size[0]
        assert large.size[1] > 2 * small.size[1]
    # One band per bar with an own-ccTLD segment, plus the legend's swatch.
    assert _own_colour_bands(one) == 1 + 1
    assert _own_colour_bands(twelve) == 12 + 1


def test_group_labels_are_not_parsed_as_math(tmp_path: Path) -> None:
    """A model name with unbalanced $ and braces is drawn as text, not mathtext."""
    rows = [
        {
            "ok": True,
            "request": {"vendor": "openai", "model": "cost $x^{2$ model"},
            "response": {"citations": [{"source_domain": "reuters.com"}]},
        }
    ]
    path = write_chart(build_report(rows), tmp_path / "math.png")
    assert path.stat().st_size > 0


def test_empty_report_still_draws(tmp_path: Path) -> None:
    """A report without rows draws a chart that says so rather than failing."""
    path = write_chart(build_report([]), tmp_path / "empty.png")
    with Image.open(path) as image:
        assert image.size[1] > 0


def test_missing_matplotlib_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without matplotlib, write_chart raises ChartsUnavailableError with the pip command."""
    hide_matplotlib(monkeypatch)
    with pytest.raises(ChartsUnavailableError, match=r"grounding-router\[charts\]"):
        write_chart(build_report(BATCH), tmp_path / "none.png")
    assert INSTALL_HINT == "pip install 'grounding-router[charts]'"
    assert not (tmp_path / "none.png").exists()
