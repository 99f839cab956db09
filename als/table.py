"""The ALS report as a rich table for people, one row per group, then the failed rows.

Group values, domains and error types come from the batch file and, before it, from the web: all
of it goes through :func:`router.text.terminal.terminal_safe` and reaches rich as plain
``Text``, never as markup.
"""

from __future__ import annotations

from typing import Any

from als.names import display_name
from als.report import ALSReport, GroupReport
from router.text.terminal import terminal_safe

__all__ = ["cost_table", "counts_table", "failure_line", "print_report", "top_table"]


def print_report(
    report: ALSReport, *, top: int = 5, console: Any = None, cost: bool = False
) -> None:
    """Print the heading, the counts per group, the top TLDs and domains, and failed rows.

    ``cost`` adds the cost per cited source of each group (``--cost-per-source``).
    """
    from rich.console import Console
    from rich.text import Text

    console = console or Console(highlight=False)
    grouping = ", ".join(report.by) if report.by else "nothing (one group)"
    console.print(
        Text(
            f"ALS report: {report.rows} rows ({report.answered} answered, {report.failed} "
            f"failed), grouped by {grouping}",
            style="bold",
        )
    )
    if report.unreadable_lines:
        console.print(
            Text(
                _skipped_lines(report.unreadable_lines),
                style="yellow",
            )
        )
    if not report.groups:
        console.print(Text("no rows to report"))
        return
    console.print(counts_table(report))
    console.print(top_table(report, top=top))
    if cost:
        console.print(cost_table(report, top=top))
        console.print(
            Text(
                "Cost per cited source: each answer's estimated cost split evenly over the "
                "sources it cites; answers citing nothing are in the cost, not per source.",
                style="dim",
            )
        )
    for group in report.groups:
        if group.failed:
            console.print(Text(failure_line(group), style="red"))
    console.print(
        Text(
            "TLD, domain and own-ccTLD shares are of citations with a known source; "
            "redirect-only citations (true source unknown) are counted apart.",
            style="dim",
        )
    )


def counts_table(report: ALSReport) -> Any:
    """A rich ``Table``: per group, rows, citations, domains, own-ccTLD and redirect shares."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="citations per group", title_justify="left", show_lines=True)
    table.add_column(_group_header(report), overflow="fold")
    for column in ("answered", "failed", "citations", "domains"):
        table.add_column(column, justify="right")
    table.add_column("own ccTLD", justify="right")
    table.add_column("redirect-\nonly", justify="right")
    verified = any(group.grounding_reports for group in report.groups)
    if verified:  # answers with a grounding report (a policy, or verification asked for)
        table.add_column("coverage\np50 (reports)", justify="right")
    for group in report.groups:
        cells = [
            Text(_group_cell(group)),
            Text(str(group.responses)),
            Text(str(group.failed) if group.failed else "-"),
            Text(str(group.citations)),
            Text(str(group.distinct_domains)),
            Text(_own_cctld_cell(group)),
            Text(_redirect_cell(group)),
        ]
        if verified:
            cells.append(Text(_coverage_cell(group)))
        table.add_row(*cells)
    return table


def _coverage_cell(group: GroupReport) -> str:
    median = group.coverage_quantile(0.5)
    return "-" if median is None else f"{median:.0%} ({group.grounding_reports})"


def top_table(report: ALSReport, *, top: int = 5) -> Any:
    """A rich ``Table``: per group, the ``top`` public suffixes and domains, counts and shares.

    Internationalised names show in Unicode beside their ASCII form (``als.names``).
    """
    from rich.table import Table
    from rich.text import Text

    title = f"top {top} public suffixes (co.uk and gov.uk apart, not bare TLDs) and domains"
    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column(_group_header(report), overflow="fold")
    table.add_column("suffix", overflow="fold")
    table.add_column("cites", justify="right")
    table.add_column("share", justify="right")
    table.add_column("domain", overflow="fold")
    table.add_column("cites", justify="right")
    table.add_column("share", justify="right")
    for group in report.groups:
        tlds = group.top_tlds(top)
        domains = group.top_domains(top)
        table.add_row(
            Text(_group_cell(group)),
            *(Text(_column(tlds, index, prefix=".")) for index in range(3)),
            *(Text(_column(domains, index)) for index in range(3)),
        )
    return table


def cost_table(report: ALSReport, *, top: int = 5) -> Any:
    """A rich ``Table``: per group, the answers' cost, the cost per cited source, and the
    ``top`` domains by the cost their cited sources carry (see :mod:`als.cost`)."""
    from rich.table import Table
    from rich.text import Text

    currencies = {group.cost.currency for group in report.groups if group.cost.currency}
    shown = f" in {next(iter(currencies))}" if len(currencies) == 1 else ""
    table = Table(
        title=f"estimated cost per cited source{shown} (list prices)",
        title_justify="left",
        show_lines=True,
    )
    table.add_column(_group_header(report), overflow="fold")
    table.add_column("answers\npriced", justify="right")
    table.add_column("cost", justify="right")
    table.add_column("per cited\nsource", justify="right")
    table.add_column(f"top {top} domains by cost", overflow="fold")
    for group in report.groups:
        cost = group.cost
        unit = "" if shown or not cost.currency else f" {cost.currency}"
        priced = str(cost.priced) + (f"\n+{cost.unpriced} unpriced" if cost.unpriced else "")
        per_source = cost.per_cited_source
        table.add_row(
            Text(_group_cell(group)),
            Text(priced),
            Text(f"{cost.total:.4f}{unit}" if cost.priced else "-"),
            Text(
                "-" if per_source is None else f"{per_source:.4f}{unit}\nover {cost.cited_sources}"
            ),
            Text(
                "\n".join(
                    f"{_safe(domain)} {amount:.4f}" for domain, amount, _ in cost.top_domains(top)
                )
                or "-"
            ),
        )
    return table


def failure_line(group: GroupReport) -> str:
    """``openai · gpt-5 · DE: 3 failed: GroundingRequiredFailedError 2 (not_invoked 2), ...``."""
    parts = []
    for error_type, count in sorted(group.failures.items(), key=lambda item: (-item[1], item[0])):
        part = f"{_safe(error_type)} {count}"
        if error_type == "GroundingRequiredFailedError" and group.required_failure_reasons:
            reasons = ", ".join(
                f"{_safe(reason)} {n}"
                for reason, n in sorted(group.required_failure_reasons.items())
            )
            part += f" ({reasons})"
        parts.append(part)
    return f"{_safe(group.label())}: {group.failed} failed: {', '.join(parts)}"


def _group_header(report: ALSReport) -> str:
    return "\n".join(report.by) if report.by else "group"


def _group_cell(group: GroupReport) -> str:
    values = (_safe(value) if value is not None else "-" for _, value in group.key)
    return "\n".join(values) or group.label()


def _own_cctld_cell(group: GroupReport) -> str:
    share = group.own_cctld_share
    if share is None:
        return "-"
    if len(group.own_cctlds) == 1:
        (cctld,) = group.own_cctlds
        where = f".{cctld}"
    else:
        where = f"{len(group.own_cctlds)} ccTLDs"
    return f"{where} {share:.1%}\n{group.own_cctld_citations} of {group.own_cctld_base}"


def _redirect_cell(group: GroupReport) -> str:
    share = group.redirector_share
    if share is None:
        return "-"
    return f"{share:.1%}\n{group.redirector_citations} of {group.citations}"


def _column(entries: list[tuple[str, int, float]], index: int, *, prefix: str = "") -> str:
    """One column of a top list, one entry per line: the name, the count or the share."""
    if not entries:
        return "-" if index == 0 else ""
    cells = (
        (f"{prefix}{_safe(display_name(name))}", str(count), f"{share:.0%}")[index]
        for name, count, share in entries
    )
    return "\n".join(cells)


def _skipped_lines(count: int) -> str:
    if count == 1:
        return "skipped 1 line that is not a batch output row"
    return f"skipped {count} lines that are not batch output rows"


def _safe(text: str) -> str:
    return terminal_safe(text, single_line=True)
