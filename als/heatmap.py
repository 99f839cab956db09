"""The provider overlap of a batch as a PNG heat map (``grounding-router als --overlap --png``).

Three matrices of the providers, side by side: the mean per-question Jaccard overlap of their
cited domains, the same of their cited URLs, and the Jaccard overlap of all the domains each
cited over the batch (:mod:`als.overlap` defines each). A cell is darker the more two providers
agree, and says its value and over how many questions; a pair never compared is grey.

matplotlib is the optional extra ``charts``, imported here lazily and drawn with the Agg canvas
(no pyplot), as :mod:`als.chart` does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from als.chart import INSTALL_HINT, ChartsUnavailableError
from als.overlap import PairOverlap, ProviderOverlap
from router.text.terminal import terminal_safe

__all__ = ["write_heatmap"]

COLOUR_MAP = "Blues"
MISSING_COLOUR = "#d9d9d9"
_LABEL_LIMIT = 18

# A panel: its title, the pair's figure, and what the figure is over.
_Panel = tuple[str, Callable[[PairOverlap], float | None], Callable[[PairOverlap], str]]
_PANELS: tuple[_Panel, ...] = (
    (
        "cited domains\nmean Jaccard per question",
        lambda pair: pair.mean_domain_jaccard,
        lambda pair: f"n={len(pair.domain_jaccards)}",
    ),
    (
        "cited URLs\nmean Jaccard per question",
        lambda pair: pair.mean_url_jaccard,
        lambda pair: f"n={len(pair.url_jaccards)}",
    ),
    (
        "all cited domains\nJaccard of the sets",
        lambda pair: pair.domain_set_jaccard,
        lambda pair: f"{pair.shared_domains}/{len(pair.domains[0] | pair.domains[1])}",
    ),
)


def write_heatmap(overlap: ProviderOverlap, path: str | Path) -> Path:
    """Draw the overlap of every pair of providers into a PNG file at ``path``.

    Raises :class:`als.chart.ChartsUnavailableError` when matplotlib is missing.
    """
    figure_class, canvas_class, colour_map = _matplotlib()
    target = Path(path)
    providers = overlap.providers
    size = max(len(providers), 1)
    figure = figure_class(
        figsize=(len(_PANELS) * (1.6 + 0.8 * size) + 1.4, 2.2 + 0.8 * size),
        dpi=110,
        layout="constrained",
    )
    canvas_class(figure)
    panels = figure.subplots(1, len(_PANELS), squeeze=False)[0]
    image = None
    for axes, panel in zip(panels, _PANELS, strict=True):
        image = _draw_panel(axes, overlap, providers, panel, colour_map)
        axes.set_title(panel[0], fontsize=9.5)
    if image is not None:
        figure.colorbar(image, ax=list(panels), shrink=0.8, label="Jaccard overlap")
    figure.suptitle(
        f"How far providers cite the same sources ({overlap.fanout_rows} fan-out rows)\n"
        "n: questions both answered with something cited; a/b: shared of all domains; "
        "grey: not compared",
        x=0.01,
        ha="left",
        fontsize=10,
    )
    figure.savefig(target)
    return target


def _matplotlib() -> tuple[Any, Any, Any]:
    try:
        from matplotlib import colormaps
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ChartsUnavailableError(
            f"the heat map needs matplotlib, which is not installed: {INSTALL_HINT}"
        ) from exc
    colour_map = colormaps[COLOUR_MAP].with_extremes(bad=MISSING_COLOUR)
    return Figure, FigureCanvasAgg, colour_map


def _draw_panel(
    axes: Any, overlap: ProviderOverlap, providers: list[str], panel: _Panel, colour_map: Any
) -> Any:
    import numpy

    _, figure_of, note_of = panel
    count = len(providers)
    values = numpy.full((max(count, 1), max(count, 1)), numpy.nan)
    notes: dict[tuple[int, int], str] = {}
    for row, left in enumerate(providers):
        for column, right in enumerate(providers):
            pair = overlap.pair(left, right) if row != column else None
            value = figure_of(pair) if pair is not None else None
            if value is not None and pair is not None:
                values[row, column] = value
                notes[row, column] = f"{value:.2f}\n{note_of(pair)}"
            else:
                notes[row, column] = "" if row == column else "n/a"
    image = axes.imshow(values, cmap=colour_map, vmin=0.0, vmax=1.0)
    for (row, column), text in notes.items():
        value = values[row, column]
        dark = not numpy.isnan(value) and value > 0.6
        axes.text(
            column,
            row,
            text,
            ha="center",
            va="center",
            fontsize=8,
            color="white" if dark else "black",
            parse_math=False,
        )
    labels = [_plain(name) for name in providers] or [""]
    axes.set_xticks(range(len(labels)), labels=labels, rotation=30, ha="right")
    axes.set_yticks(range(len(labels)), labels=labels)
    for label in (*axes.get_xticklabels(), *axes.get_yticklabels()):
        label.set_parse_math(False)
    return image


def _plain(text: str) -> str:
    cleaned = terminal_safe(text, single_line=True)
    return cleaned if len(cleaned) <= _LABEL_LIMIT else cleaned[: _LABEL_LIMIT - 1] + "…"
