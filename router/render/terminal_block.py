"""The terminal view of an answer: ``[n]`` markers where it cites, then its numbered sources.

Each source shows its title (an OSC 8 hyperlink to its URL where the terminal supports one),
the whole URL on a line of its own (never cut: terminals and people copy it from there), the
domain, whether the answer cites it or it was only searched, the passage quoted for it, and the
verdicts of the claims resting on it when verification ran.

Every provider string passes :func:`router.text.terminal.terminal_safe` and reaches rich as plain
``Text``, never markup. The only escape sequences written are rich's own styles and the OSC 8
links this module asks for, whose targets are http(s) URLs with no control character in them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from router.render.view import (
    VERDICTS,
    answer_segments,
    attributions_of,
    citations_of,
    is_redirect,
    safe_href,
    source_verdicts,
    verification_summary,
)
from router.text.terminal import terminal_safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = [
    "LinkChoice",
    "answer_text",
    "console_for",
    "links_supported",
    "print_answer_block",
    "sources_block",
]

LinkChoice = Literal["auto", "on", "off"]

# Terminals known to show OSC 8 sequences as garbage rather than ignore them.
_NO_LINK_TERMS = ("dumb", "linux")


def links_supported(console: Console, choice: LinkChoice = "auto") -> bool:
    """Whether to write OSC 8 links: as asked, else only on a real, capable terminal."""
    if choice != "auto":
        return choice == "on"
    if not console.is_terminal or console.color_system is None:
        return False
    term = os.environ.get("TERM", "")
    return not any(term == name or term.startswith(f"{name}-") for name in _NO_LINK_TERMS)


def console_for(choice: LinkChoice = "auto") -> Console:
    """The console to print on: with ``--links`` asked for, one that writes them even to a pipe."""
    from rich.console import Console

    if choice == "on":
        return Console(highlight=False, force_terminal=True, color_system="standard")
    return Console(highlight=False)


def answer_text(response: Mapping[str, Any]) -> Text:
    """The answer, terminal-safe, with ``[n]`` after each attribution (n: the source number)."""
    from rich.text import Text

    content = response.get("content")
    text = Text()
    if not isinstance(content, str):
        return text
    for segment in answer_segments(content, attributions_of(response)):
        text.append(terminal_safe(segment["t"]), style="underline" if segment["a"] else "")
        for number in segment["m"]:
            text.append(f"[{number}]", style="bold cyan")
    return text


def sources_block(response: Mapping[str, Any], *, links: bool) -> list[Text]:
    """The numbered source lines, one ``Text`` per printed line."""
    from rich.style import Style
    from rich.text import Text

    lines: list[Text] = []
    verdicts = source_verdicts(response)
    for index, citation in enumerate(citations_of(response)):
        number = index + 1
        url = terminal_safe(str(citation.get("url") or ""), single_line=True)
        href = safe_href(url)
        title = terminal_safe(str(citation.get("title") or ""), single_line=True) or "(no title)"
        head = Text(f"[{number}] ", style="bold cyan")
        head.append(title, style=Style(bold=True, link=href) if links and href else "bold")
        lines.append(head)
        lines.append(Text(f"    {url or '(no URL)'}"))
        facts = [terminal_safe(str(citation.get("source_domain") or ""), single_line=True) or "?"]
        facts.append("cited" if citation.get("cited") else "searched only")
        if is_redirect(citation):
            facts.append("redirect")
        counted = verdicts.get(index)
        if counted:
            facts.append(", ".join(f"{v} {counted[v]}" for v in VERDICTS if counted.get(v)))
        lines.append(Text("    " + " · ".join(facts), style="dim"))
        cited_text = terminal_safe(str(citation.get("cited_text") or ""), single_line=True)
        if cited_text:
            lines.append(Text(f'    > "{cited_text}"', style="italic"))
    return lines


def _summary_line(response: Mapping[str, Any]) -> Text | None:
    from rich.text import Text

    summary = verification_summary(response)
    if summary is None:
        return None
    parts = []
    if summary["coverage"] is not None:
        parts.append(f"coverage {summary['coverage']:.0%}")
    if summary["support_rate"] is not None:
        parts.append(f"support rate {summary['support_rate']:.0%}")
    parts.append(", ".join(f"{verdict} {summary['counts'][verdict]}" for verdict in VERDICTS))
    if summary["scorer"]:
        parts.append(f"scorer {terminal_safe(summary['scorer'], single_line=True)}")
    line = Text("verification: " + " · ".join(parts), style="bold")
    for violation in summary["violations"]:
        line.append(f"\n  violated: {terminal_safe(violation, single_line=True)}", style="yellow")
    return line


def print_answer_block(
    console: Console,
    response: Mapping[str, Any],
    *,
    links: bool,
    with_content: bool = True,
) -> None:
    """Print the answer with markers, the verification summary and the numbered sources."""
    if with_content:
        console.print(answer_text(response))
    summary = _summary_line(response)
    if summary is not None:
        console.print(summary)
    lines = sources_block(response, links=links)
    if lines:
        console.print()
    for line in lines:
        # soft_wrap: rich inserts no line break, so a long URL stays one line to copy or click.
        console.print(line, soft_wrap=True)
