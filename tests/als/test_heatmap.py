"""The overlap heat map: a PNG that opens, colours agreement, grows with providers, needs charts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from matplotlib import colormaps
from PIL import Image

from als.chart import ChartsUnavailableError
from als.heatmap import COLOUR_MAP, MISSING_COLOUR, write_heatmap
from als.overlap import ProviderOverlap
from als.report import build_report
from support.charts import colour_counts, hide_matplotlib
from support.fanout_rows import agreement_row


def fanout_line(order: list[str], jaccard: float) -> dict[str, Any]:
    """A fan-out row where every pair of ``order`` agrees by ``jaccard`` on domains and URLs."""
    pairs = [[left, right] for n, left in enumerate(order) for right in order[n + 1 :]]
    agreement = [
        {"providers": pair, "domain_jaccard": jaccard, "url_jaccard": jaccard} for pair in pairs
    ]
    return agreement_row(
        order, agreement, cited_domains={name: ["shared.example"] for name in order}
    )


def overlap(*providers: str, jaccard: float = 1.0) -> ProviderOverlap:
    return build_report([fanout_line(list(providers), jaccard)]).overlap


def _rgb(colour: tuple[float, ...]) -> tuple[int, int, int]:
    red, green, blue = (round(part * 255) for part in colour[:3])
    return red, green, blue


def test_full_agreement_is_the_darkest_colour(tmp_path: Path) -> None:
    """Two providers that always agree: their cells in the darkest blue, the diagonal grey."""
    path = write_heatmap(overlap("openai", "vertex"), tmp_path / "overlap.png")
    with Image.open(path) as image:
        assert image.format == "PNG"
    colours = colour_counts(path)
    darkest = _rgb(colormaps[COLOUR_MAP](1.0))
    grey = (int(MISSING_COLOUR[1:3], 16), int(MISSING_COLOUR[3:5], 16), int(MISSING_COLOUR[5:], 16))
    assert colours.get(darkest, 0) > 1000
    assert colours.get(grey, 0) > 1000


def test_the_map_grows_with_providers(tmp_path: Path) -> None:
    """Four providers give a larger map than two."""
    two = write_heatmap(overlap("openai", "vertex"), tmp_path / "two.png")
    four = write_heatmap(
        overlap("openai", "vertex", "anthropic", "perplexity", jaccard=0.2), tmp_path / "four.png"
    )
    with Image.open(two) as small, Image.open(four) as large:
        assert large.size[0] > small.size[0]
        assert large.size[1] > small.size[1]


def test_a_batch_without_fanout_rows_still_draws(tmp_path: Path) -> None:
    """No fan-out rows: an empty map, not a failure."""
    path = write_heatmap(build_report([]).overlap, tmp_path / "empty.png")
    with Image.open(path) as image:
        assert image.size[1] > 0


def test_provider_names_are_not_parsed_as_math(tmp_path: Path) -> None:
    """A provider named with unbalanced $ and braces is drawn as text."""
    path = write_heatmap(overlap("open$ai^{", "vertex"), tmp_path / "math.png")
    assert path.stat().st_size > 0


def test_missing_matplotlib_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without matplotlib, write_heatmap raises ChartsUnavailableError with the pip command."""
    hide_matplotlib(monkeypatch)
    with pytest.raises(ChartsUnavailableError, match=r"grounding-router\[charts\]"):
        write_heatmap(overlap("openai", "vertex"), tmp_path / "none.png")
    assert not (tmp_path / "none.png").exists()
