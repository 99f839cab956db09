"""The end-of-run batch summary, as a table for people."""

from __future__ import annotations

from typing import Any

from router.batch.stats import BatchSummary
from router.text.terminal import terminal_safe

__all__ = ["print_summary"]

_OUTCOME_LABELS = {
    "ok": "answered (passed validation)",
    "required_failed": "REQUIRED grounding failed",
    "provider_error": "provider error",
    "bad_input": "bad input line",
    "fanout_failed": "several providers: require not met",
    "error": "other error",
}
_CALL_COLUMNS = (
    ("ok", "answered"),
    ("required_failed", "REQUIRED failed"),
    ("provider_error", "provider error"),
)


def print_summary(summary: BatchSummary) -> None:
    """Print counts by outcome, grounding and citation rates, latency and top domains."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    title = "batch summary (interrupted)" if summary.interrupted else "batch summary"
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("requests in input", str(summary.total))
    if summary.skipped:
        table.add_row("already done (resume)", str(summary.skipped))
    table.add_row("done in this run", str(summary.done))
    for outcome, count in summary.outcomes.items():
        table.add_row(f"  {_OUTCOME_LABELS.get(outcome, outcome)}", str(count))
    if summary.fanout_rows:
        table.add_row("  of which asked several providers", str(summary.fanout_rows))
        if summary.required_failure_reasons:
            table.add_row("REQUIRED failures (provider calls)", "")
    for reason, count in summary.required_failure_reasons.items():
        table.add_row(f"    reason {reason}", str(count))
    if summary.fallback_reasons:
        table.add_row("fallbacks taken", str(sum(summary.fallback_reasons.values())))
        for reason, count in summary.fallback_reasons.items():
            table.add_row(f"    after {reason}", str(count))
        for vendor, count in summary.answers_by_vendor.items():
            table.add_row(f"  answered by {vendor}", str(count))
    table.add_row("grounded rate", _percent(summary.grounded_rate))
    table.add_row("citations per answer", _number(summary.citations_per_answer))
    table.add_row(
        "latency p50 / p95 (ms)",
        f"{_number(summary.latency_ms_p50, 0)} / {_number(summary.latency_ms_p95, 0)}",
    )
    rate = summary.done / summary.elapsed_s if summary.elapsed_s > 0 else 0.0
    table.add_row("elapsed", f"{summary.elapsed_s:.1f} s ({rate:.1f} requests/s)")
    console.print(table)
    if summary.fanout_rows or len(summary.provider_outcomes) > 1:
        console.print(_provider_table(summary))
    if summary.grounding:
        console.print(_grounding_table(summary))
    if summary.cost.by_model:
        console.print(_cost_table(summary))
    if summary.top_domains:
        domains = Table(title="top cited domains", title_justify="left")
        domains.add_column("domain")
        domains.add_column("citations", justify="right")
        for domain, count in summary.top_domains:
            # Domains come from provider replies: printed as text, never as rich markup.
            domains.add_row(Text(terminal_safe(domain, single_line=True)), str(count))
        console.print(domains)


def _provider_table(summary: BatchSummary) -> Any:
    """Each vendor's calls by outcome: a fan-out row counts once for each provider it asked."""
    from rich.table import Table

    table = Table(title="provider calls", title_justify="left")
    table.add_column("vendor")
    for name in ("calls", *(label for _, label in _CALL_COLUMNS), "other"):
        table.add_column(name, justify="right")
    for vendor, counts in summary.provider_outcomes.items():
        calls = sum(counts.values())
        named = [counts.get(outcome, 0) for outcome, _ in _CALL_COLUMNS]
        table.add_row(vendor, str(calls), *map(str, named), str(calls - sum(named)))
    return table


def _grounding_table(summary: BatchSummary) -> Any:
    """Per vendor: coverage and support percentiles of the grounding reports, rules broken."""
    from rich.table import Table

    table = Table(title="grounding (claim by claim)", title_justify="left")
    for name in ("vendor", "reports", "coverage p10/p50/p90", "support p10/p50/p90"):
        table.add_column(name, justify="left" if name == "vendor" else "right")
    table.add_column("policy failures by rule")
    for vendor, grounding in summary.grounding.items():
        failures = ", ".join(f"{rule} {n}" for rule, n in grounding["policy_failures"].items())
        table.add_row(
            vendor,
            str(grounding["reports"]),
            _percentiles(grounding["coverage"]),
            _percentiles(grounding["support_rate"]),
            failures or "-",
        )
    return table


def _percentiles(values: dict[str, float | None]) -> str:
    return " / ".join(_percent_whole(values[name]) for name in ("p10", "p50", "p90"))


def _percent_whole(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _cost_table(summary: BatchSummary) -> Any:
    """Estimated spend per vendor and model, the run's total last (list prices, see README)."""
    from rich.table import Table
    from rich.text import Text

    cost = summary.cost
    currencies = sorted({entry["currency"] for entry in cost.by_model if entry["currency"]})
    title = "estimated cost" + (f" in {currencies[0]}" if len(currencies) == 1 else "")
    table = Table(title=f"{title} (list prices)", title_justify="left")
    columns = ["vendor", "model", "answers", "tokens", "searches", "total"]
    if cost.unpriced:
        columns.insert(3, "no price")
    if len(currencies) > 1:
        columns.append("currency")
    for name in columns:
        table.add_column(name, justify="left" if name in ("vendor", "model") else "right")
    totals = [{**entry, "vendor": "all", "model": ""} for entry in cost.totals]
    for entry in [*cost.by_model, *totals]:
        priced = entry["currency"] is not None
        cells = {
            "vendor": entry["vendor"],
            # Model names come from input files: printed as text, never as rich markup.
            "model": Text(terminal_safe(entry["model"], single_line=True)),
            "answers": str(entry["responses"]),
            "no price": str(cost.unpriced if entry["vendor"] == "all" else entry["unpriced"]),
            "tokens": f"{entry['tokens']:.4f}" if priced else "-",
            "searches": f"{entry['searches']:.4f}" if priced else "-",
            "total": f"{entry['total']:.4f}" if priced else "-",
            "currency": entry["currency"] or "-",
        }
        table.add_row(*(cells[name] for name in columns))
    return table


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"
