"""How the CLI shows a response or an error: rich tables for people, JSON for programs."""

from __future__ import annotations

import json
import sys

from router.errors import RouterError
from router.text.terminal import json_for_terminal, terminal_safe
from router.types import LLMResponse

__all__ = ["citations_table", "print_error", "print_response", "shortened"]


def print_response(
    response: LLMResponse, *, as_json: bool = False, with_content: bool = True
) -> None:
    """Print the answer, grounding evidence and citations (or the whole response as JSON).

    ``with_content=False`` leaves the answer out (a stream has printed it already).
    """
    if as_json:
        print(json_for_terminal(response.model_dump_json(indent=2)))
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)
    if with_content:
        console.print(Text(terminal_safe(response.content)))
    console.print()
    model = terminal_safe(response.model, single_line=True)
    evidence = (
        f"{response.vendor} {model} · grounded: {response.grounded_effective} · "
        f"tool calls: {response.tool_call_count} · citations: {len(response.citations)} · "
        f"attempts: {response.attempts} · {response.latency_ms:.0f} ms"
    )
    console.print(Text(evidence, style="dim"))
    if response.web_search_queries:
        queries = "; ".join(terminal_safe(q, single_line=True) for q in response.web_search_queries)
        console.print(Text(f"searched: {queries}", style="dim"))
    if response.citations:
        console.print(citations_table(response))
    for warning in response.metadata.get("warnings", []):
        console.print(Text(terminal_safe(str(warning), single_line=True), style="yellow"))
    if response.grounding is not None:
        from router.commands.grounding_flags import grounding_block

        for line, style in grounding_block(response.grounding):
            console.print(Text(line, style=style))


def citations_table(response: LLMResponse) -> object:
    """A rich table of the citations: rank, cited, domain, type, title and URL."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title="citations", title_justify="left", expand=False)
    for column in ("#", "cited", "domain", "type", "title", "url"):
        table.add_column(column, overflow="fold")
    for citation in response.citations:
        redirect = " (redirect)" if citation["raw"].get("redirect_only") else ""
        table.add_row(
            Text(str(citation["rank"] or "")),
            Text("yes" if citation["cited"] else ""),
            Text(terminal_safe(citation["source_domain"], single_line=True) + redirect),
            Text(citation["source_type"]),
            Text(terminal_safe(citation["title"], single_line=True)[:80]),
            Text(shortened(terminal_safe(citation["url"], single_line=True))),
        )
    return table


def shortened(url: str, limit: int = 72) -> str:
    """A long URL (Vertex redirect tokens run to 300 characters) cut in the middle for tables."""
    if len(url) <= limit:
        return url
    return f"{url[: limit - 17]}…{url[-16:]}"


def print_error(error: RouterError, *, as_json: bool = False) -> None:
    """Print a router error on stderr: one line for people, or its dict as JSON."""
    if as_json:
        print(json.dumps({"error": error.to_dict()}, indent=2, default=str), file=sys.stderr)
        return
    where = " ".join(
        f"{name}={value}"
        for name, value in (
            ("vendor", error.vendor),
            ("model", error.model),
            ("request_id", error.request_id),
            ("status", error.status_code),
            ("reason", error.reason),
            ("rule", getattr(error, "rule", None)),
        )
        if value is not None
    )
    line = f"error: {type(error).__name__}: {terminal_safe(error.message, single_line=True)}"
    print(f"{line} [{where}]" if where else line, file=sys.stderr)
