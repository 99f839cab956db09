"""The ALS chart: one horizontal bar per group, split into the public-suffix shares of its
citations (``co.uk`` and ``gov.uk`` apart; internationalised ones in Unicode beside ASCII).

Each bar is 100 % of the group's citations with a known source and a public suffix. The segment
on the requester's own country-code TLD comes first, in the one strong colour, so groups compare
at a glance along the left edge; the most cited other TLDs follow in the same order and colours
in every bar, then "other". Segments are labelled with their TLD and count where they fit, and
each bar ends with its citation count and redirect-only share.

matplotlib is the optional extra ``charts``: it is imported here, lazily, and drawn with the Agg
canvas directly (no pyplot, no global backend switch), so a host application's matplotlib setup
is left alone.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

from als.names import display_name
from als.report import ALSReport, GroupReport
from router.text.terminal import terminal_safe

__all__ = ["INSTALL_HINT", "ChartsUnavailableError", "suffix_label", "write_chart"]

INSTALL_HINT = "pip install 'grounding-router[charts]'"

OWN_COLOUR = "#d95f02"
OTHER_COLOUR = "#d9d9d9"
# ColorBrewer Set3 without its orange, salmon and grey, which belong to "own" and "other".
TLD_COLOURS = (
    "#80b1d3",
    "#8dd3c7",
    "#bebada",
    "#b3de69",
    "#fccde5",
    "#ffed6f",
    "#bc80bd",
    "#ccebc5",
    "#ffffb3",
)
_PLOT_WIDTH_IN = 6.0  # the bars' share of the 11-inch figure (at least), to judge label fit
_CHAR_WIDTH_IN = 0.075  # one character at 8 pt
_LABEL_LIMIT = 44
_LEGEND_COLUMNS = 6


class ChartsUnavailableError(RuntimeError):
    """matplotlib is not installed; the message says how to install it."""


def write_chart(report: ALSReport, path: str | Path, *, top: int = 8) -> Path:
    """Draw the TLD distribution of every group of ``report`` into a PNG file at ``path``.

    ``top`` other TLDs (at most nine) get a colour of their own; the rest are "other".
    Raises :class:`ChartsUnavailableError` when matplotlib is missing.
    """
    figure_class, canvas_class, patch_class, percent_formatter = _matplotlib()
    target = Path(path)
    groups = report.groups
    named = _named_tlds(groups, min(max(top, 0), len(TLD_COLOURS)))
    colours = dict(zip(named, TLD_COLOURS, strict=False))
    legend_rows = math.ceil((len(named) + 2) / _LEGEND_COLUMNS)
    height = 1.9 + 0.5 * max(len(groups), 1) + 0.3 * legend_rows
    figure = figure_class(figsize=(11, height), dpi=110, layout="constrained")
    canvas_class(figure)
    axes = figure.add_subplot()
    for row, group in enumerate(groups):
        _draw_bar(axes, row, group, named, colours)
    if not groups:
        axes.text(0.5, 0, "no rows in this batch output", ha="center", va="center", color="0.4")
    axes.set_yticks(range(max(len(groups), 1)), labels=[_plain(g.label()) for g in groups] or [""])
    for label in axes.get_yticklabels():
        label.set_parse_math(False)
    axes.set_ylim(max(len(groups), 1) - 0.5, -0.5)  # first group on top
    axes.set_xlim(0, 1)
    axes.xaxis.set_major_formatter(percent_formatter(xmax=1))
    axes.grid(axis="x", alpha=0.3)
    axes.set_axisbelow(True)
    axes.spines[["top", "right"]].set_visible(False)
    figure.suptitle(
        "Where cited sources live: public-suffix share per group (co.uk and gov.uk apart)",
        x=0.01,
        ha="left",
    )
    axes.set_title(
        "Each bar: the group's citations with a known source; orange: the requester's own "
        "country-code TLD.\nRight: n = those citations, the redirect-only share (true source "
        "unknown, not in the bar), failed rows.",
        loc="left",
        fontsize=8.5,
        color="0.35",
    )
    handles = [patch_class(color=OWN_COLOUR, label="own country-code TLD")]
    handles += [patch_class(color=colours[tld], label=suffix_label(tld)) for tld in named]
    handles.append(patch_class(color=OTHER_COLOUR, label="other"))
    figure.legend(
        handles=handles,
        loc="outside lower center",
        ncols=min(len(handles), _LEGEND_COLUMNS),
        frameon=False,
        fontsize=9,
    )
    figure.savefig(target)
    return target


def _matplotlib() -> tuple[Any, Any, Any, Any]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch
        from matplotlib.ticker import PercentFormatter
    except ImportError as exc:
        raise ChartsUnavailableError(
            f"the chart needs matplotlib, which is not installed: {INSTALL_HINT}"
        ) from exc
    return Figure, FigureCanvasAgg, Patch, PercentFormatter


def _named_tlds(groups: list[GroupReport], limit: int) -> list[str]:
    """The TLDs most cited outside their requesters' own ccTLD, across all groups."""
    totals: Counter[str] = Counter()
    for group in groups:
        totals.update(group.foreign_tld_counts)
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return [tld for tld, _ in ranked[:limit]]


def _draw_bar(
    axes: Any, row: int, group: GroupReport, named: list[str], colours: dict[str, str]
) -> None:
    total = group.tld_citations
    note = f"n={total}"
    if group.redirector_share is not None and group.redirector_citations:
        note += f" · {group.redirector_share:.0%} redirect-only"
    if group.failed:
        note += f" · {group.failed} failed"
    axes.text(1.01, row, note, transform=axes.get_yaxis_transform(), va="center", fontsize=8)
    if total == 0:
        axes.text(0.01, row, "no citations with a known TLD", va="center", fontsize=8, color="0.4")
        return
    foreign = group.foreign_tld_counts
    segments = [(_own_name(group), group.own_cctld_citations, OWN_COLOUR, "white")]
    segments += [(suffix_label(tld), foreign.get(tld, 0), colours[tld], "black") for tld in named]
    rest = sum(count for tld, count in foreign.items() if tld not in colours)
    segments.append(("other", rest, OTHER_COLOUR, "black"))
    left = 0.0
    for name, count, colour, text_colour in segments:
        if count == 0:
            continue
        width = count / total
        is_own = colour == OWN_COLOUR
        axes.barh(
            row,
            width,
            left=left,
            height=0.66,
            color=colour,
            edgecolor="black" if is_own else "white",
            linewidth=1.2 if is_own else 0.6,
        )
        label = _fitting_label(f"{name} {count}", str(count), width)
        if label:
            axes.text(
                left + width / 2,
                row,
                label,
                ha="center",
                va="center",
                fontsize=8,
                color=text_colour,
                fontweight="bold" if is_own else "normal",
                parse_math=False,
            )
        left += width


def suffix_label(suffix: str) -> str:
    """A public suffix as the chart names it: ``.de``, ``.рф (xn--p1ai)``."""
    return f".{display_name(suffix)}"


def _own_name(group: GroupReport) -> str:
    """``.de`` when every own-ccTLD citation is under one ASCII ccTLD, else ``own``."""
    if len(group.own_cctlds) != 1:
        return "own"
    (cctld,) = group.own_cctlds
    if any(suffix.rpartition(".")[2] != cctld for suffix in group.own_cctld_counts):
        return "own"  # an IDN ccTLD (Russia's .рф) is among them
    return f".{cctld}"


def _fitting_label(full: str, short: str, width: float) -> str | None:
    """The longest of the labels that fits in a segment of ``width`` (a share of the bar)."""
    room = width * _PLOT_WIDTH_IN / _CHAR_WIDTH_IN
    for label in (full, short):
        if len(label) + 1 <= room:
            return label
    return None


def _plain(text: str) -> str:
    cleaned = terminal_safe(text, single_line=True)
    return cleaned if len(cleaned) <= _LABEL_LIMIT else cleaned[: _LABEL_LIMIT - 1] + "…"
