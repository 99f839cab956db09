"""The provider overlap of a batch (``grounding-router als --overlap``) as a table for people.

Provider names come from the batch file: they reach rich as plain ``Text``, never as markup.
"""

from __future__ import annotations

from typing import Any

from als.overlap import PairOverlap, ProviderOverlap
from router.text.terminal import terminal_safe

__all__ = ["overlap_table", "print_overlap"]


def print_overlap(overlap: ProviderOverlap, *, console: Any = None) -> None:
    """Print the heading, one row per pair of providers, and what the figures mean."""
    from rich.console import Console
    from rich.text import Text

    console = console or Console(highlight=False)
    console.print(
        Text(
            f"provider overlap over {overlap.fanout_rows} fan-out rows "
            f"({len(overlap.providers)} providers)",
            style="bold",
        )
    )
    if not overlap.pairs:
        console.print(Text("no fan-out rows asking two providers or more in this batch output"))
        return
    console.print(overlap_table(overlap))
    console.print(
        Text(
            "mean Jaccard: per question both answered with something cited (n such questions), "
            "of the cited domains and of the cited URLs; domain sets: the Jaccard of all the "
            "domains each cited over the questions both answered (shared of all).",
            style="dim",
        )
    )


def overlap_table(overlap: ProviderOverlap) -> Any:
    """A rich ``Table``: per pair of providers, questions, answers and the overlap figures."""
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title="cited-source overlap per pair of providers", title_justify="left", show_lines=True
    )
    table.add_column("providers", overflow="fold")
    table.add_column("questions", justify="right")
    table.add_column("both\nanswered", justify="right")
    table.add_column("domains\nmean Jaccard", justify="right")
    table.add_column("URLs\nmean Jaccard", justify="right")
    table.add_column("domain sets\nJaccard", justify="right")
    for key in sorted(overlap.pairs):
        pair = overlap.pairs[key]
        table.add_row(
            Text("\n".join(terminal_safe(name, single_line=True) for name in pair.providers)),
            Text(str(pair.questions)),
            Text(str(pair.both_answered)),
            Text(_mean_cell(pair.mean_domain_jaccard, len(pair.domain_jaccards))),
            Text(_mean_cell(pair.mean_url_jaccard, len(pair.url_jaccards))),
            Text(_set_cell(pair)),
        )
    return table


def _mean_cell(value: float | None, questions: int) -> str:
    return "-" if value is None else f"{value:.2f}\nn={questions}"


def _set_cell(pair: PairOverlap) -> str:
    share = pair.domain_set_jaccard
    if share is None:
        return "-"
    union = len(pair.domains[0] | pair.domains[1])
    return f"{share:.2f}\n{pair.shared_domains} of {union}"
