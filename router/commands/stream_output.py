"""``grounding-router route --stream``: the answer printed as it arrives, the citations after.

For people, the text goes to stdout piece by piece (made terminal-safe), a line names each
search as it starts, and when the stream completes the grounding evidence and the citation table
follow, as ``route`` prints them. With ``--json`` each event is one JSON object per line:
``{"event": "text", "text": ...}``, ``{"event": "search", "queries": [...]}``,
``{"event": "citation", "citation": {...}}`` and last ``{"event": "completed", "response":
{...}}``. An error ends the stream with the same message and exit code as ``route``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.commands.exit_codes import ExitCode
from router.settings import RouterSettings
from router.streaming import CitationDelta, Completed, SearchStarted, StreamEvent, TextDelta
from router.text.terminal import json_for_terminal, terminal_safe

if TYPE_CHECKING:
    from router.render.terminal_block import LinkChoice

__all__ = ["event_json", "run_stream"]


def run_stream(
    request: dict[str, Any],
    settings: RouterSettings,
    *,
    as_json: bool,
    exit_code_for: Callable[[BaseException], ExitCode],
    links: LinkChoice = "auto",
    html: Path | None = None,
) -> int:
    """Stream ``request`` and print it; returns the exit code (``exit_code_for`` an error's).

    ``links`` and ``html`` are route's ``--links/--no-links`` and ``--html FILE``.
    """
    from router.commands.render import (
        error_rows,
        print_error,
        print_response,
        response_rows,
        write_html,
    )
    from router.errors import RouterError
    from router.router import UnifiedLLMAdapter

    printed_text = False
    try:
        with UnifiedLLMAdapter(settings) as router:
            for event in router.stream(request):
                if as_json:
                    print(json_for_terminal(json.dumps(event_json(event))), flush=True)
                elif isinstance(event, TextDelta):
                    sys.stdout.write(terminal_safe(event.text))
                    sys.stdout.flush()
                    printed_text = True
                elif isinstance(event, SearchStarted) and not printed_text:
                    queries = "; ".join(terminal_safe(q, single_line=True) for q in event.queries)
                    print(f"[searching{': ' + queries if queries else ''}]", flush=True)
                elif isinstance(event, Completed):
                    print()
                    print_response(event.response, with_content=False, links=links)
                if isinstance(event, Completed):
                    write_html(
                        html, response_rows(event.response), title="grounding report: stream"
                    )
    except RouterError as error:
        if printed_text:
            print()
        print_error(error, as_json=as_json)
        write_html(html, error_rows(error), title="grounding report: stream")
        return exit_code_for(error)
    return ExitCode.OK


def event_json(event: StreamEvent) -> dict[str, Any]:
    """One event as the JSON object ``--stream --json`` prints."""
    if isinstance(event, TextDelta):
        return {"event": "text", "text": event.text}
    if isinstance(event, SearchStarted):
        return {"event": "search", "queries": list(event.queries)}
    if isinstance(event, CitationDelta):
        return {"event": "citation", "citation": event.citation}
    return {"event": "completed", "response": event.response.model_dump(mode="json")}
