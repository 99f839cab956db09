"""How the CLI shows a response or an error: the answer block for people, JSON for programs."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from router.errors import RouterError
from router.render.terminal_block import (
    LinkChoice,
    answer_text,
    console_for,
    links_supported,
    print_answer_block,
)
from router.text.terminal import json_for_terminal, terminal_safe
from router.types import LLMResponse

if TYPE_CHECKING:
    from router.render.report_input import ReportRow

__all__ = [
    "add_view_options",
    "error_rows",
    "link_choice",
    "print_error",
    "print_response",
    "response_rows",
    "write_html",
]


def print_response(
    response: LLMResponse,
    *,
    as_json: bool = False,
    with_content: bool = True,
    links: LinkChoice = "auto",
) -> None:
    """Print the answer with its ``[n]`` markers, grounding evidence and numbered sources.

    ``with_content=False`` leaves the answer out (a stream has printed it already); ``links``
    says whether source titles are OSC 8 hyperlinks ("auto": where the terminal shows them).
    ``as_json`` prints the whole response as JSON instead.
    """
    if as_json:
        print(json_for_terminal(response.model_dump_json(indent=2)))
        return
    from rich.text import Text

    console = console_for(links)
    data = response.model_dump(mode="json")
    if with_content:
        console.print(answer_text(data))
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
    print_answer_block(console, data, links=links_supported(console, links), with_content=False)
    for warning in response.metadata.get("warnings", []):
        console.print(Text(terminal_safe(str(warning), single_line=True), style="yellow"))
    if response.grounding is not None:
        from router.commands.grounding_flags import grounding_block

        for line, style in grounding_block(response.grounding):
            console.print(Text(line, style=style))


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


def add_view_options(parser: argparse.ArgumentParser) -> None:
    """``--links/--no-links`` and ``--html FILE``, as route, extract and compare take them."""
    parser.add_argument(
        "--links",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="source titles as clickable terminal hyperlinks (default: where the terminal "
        "supports them)",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write a self-contained HTML report of the outcome to FILE",
    )


def link_choice(args: argparse.Namespace) -> LinkChoice:
    """What ``--links/--no-links`` asked for ("auto" when neither was given)."""
    links = getattr(args, "links", None)
    return "auto" if links is None else "on" if links else "off"


def write_html(target: Path | None, rows: Iterable[ReportRow], *, title: str) -> None:
    """Write the report of ``rows`` to ``target`` when one was asked for, and say where."""
    if target is None:
        return
    from router.render.html import write_rows_file

    write_rows_file(rows, target, title=title)
    print(f"report written to {target}", file=sys.stderr)


def response_rows(response: LLMResponse) -> list[ReportRow]:
    """The report row of one answer."""
    from router.render.report_input import rows_from_record

    return rows_from_record(response.model_dump(mode="json"))[1]


def error_rows(error: RouterError) -> list[ReportRow]:
    """The report row of one failure."""
    from router.render.report_input import rows_from_record

    return rows_from_record({"error": error.to_dict()})[1]
