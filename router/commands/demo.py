"""``grounding-router demo``: the router end to end against the built-in emulator.

It starts the loopback emulator in this process, points every real SDK client at it, and routes a
handful of requests through the real adapters: AUTO and REQUIRED grounding on OpenAI and Vertex,
grounded JSON on Vertex (two steps), one grounded question each to the Gemini API, Perplexity
and OpenRouter, Claude's cited passages and a document it cites, transient faults that are
retried, and a REQUIRED failure shown as the error a pipeline would catch. Nothing leaves the
machine and no key is needed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.registry import labels, provider, vendors
from router.commands.exit_codes import ExitCode

__all__ = ["DEMO_STEPS", "DemoStep", "register"]

_DESCRIPTION = """\
Route sample requests through every provider's adapter against the built-in provider emulator
(loopback, no keys, no network) and print each answer with its citations, then a TLD summary of
all citations, and write an HTML report of the run (--report). To use the real services
instead, set a provider's settings (`grounding-router providers` lists them) and run
`grounding-router route` or `batch`."""


_ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "mountain": {"type": "string"},
        "elevation_m": {"type": "integer"},
        "summary": {"type": "string"},
    },
    "required": ["mountain", "elevation_m", "summary"],
}


@dataclass(frozen=True)
class DemoStep:
    """One request of the demo and what it shows."""

    title: str
    request: dict[str, Any]
    expect_failure: bool = False
    notes: list[str] = field(default_factory=list)


def _ask(vendor: str, question: str, **options: Any) -> dict[str, Any]:
    return {
        "vendor": vendor,
        "model": provider(vendor).default_model,
        "messages": [{"role": "user", "content": question}],
        **options,
    }


DEMO_STEPS: tuple[DemoStep, ...] = (
    DemoStep(
        "OpenAI, grounded (AUTO): web search with inline citations",
        _ask("openai", "What is the capital of France?", grounded=True, request_id="demo-1"),
    ),
    DemoStep(
        "Vertex, REQUIRED grounding for a user in Germany: redirect links, true domains",
        _ask(
            "vertex",
            "How high is the Zugspitze?",
            grounded=True,
            grounding_mode="REQUIRED",
            user_location={"country": "DE", "city": "Munich"},
            request_id="demo-2",
        ),
    ),
    DemoStep(
        "Vertex, grounded JSON: step 1 searches, step 2 reshapes into the schema",
        _ask(
            "vertex",
            "What is the tallest mountain in Alberta?",
            grounded=True,
            grounding_mode="REQUIRED",
            json_schema=_ANSWER_SCHEMA,
            request_id="demo-3",
        ),
    ),
    DemoStep(
        "Gemini API (an API key): the same grounding as Vertex, citations named gemini",
        _ask("gemini", "What is the capital of France?", grounded=True, request_id="demo-g"),
    ),
    DemoStep(
        "Perplexity, REQUIRED: [n] markers become spans, search-result snippets the cited text",
        _ask(
            "perplexity",
            "How high is the Zugspitze?",
            grounded=True,
            grounding_mode="REQUIRED",
            request_id="demo-p",
        ),
    ),
    DemoStep(
        "OpenRouter with the web plugin: OpenAI's annotation shape, page text as snippet",
        _ask("openrouter", "What is the capital of France?", grounded=True, request_id="demo-o"),
    ),
    DemoStep(
        "Claude, REQUIRED grounding for a user in Switzerland, past one 529 overloaded: "
        "cited passages and their locations",
        _ask(
            "anthropic",
            "What is the capital of Switzerland? [[emulator:fault=529:1*1]]",
            grounded=True,
            grounding_mode="REQUIRED",
            user_location={"country": "CH", "city": "Zurich"},
            blocked_domains=["pinterest.com"],
            request_id="demo-claude",
        ),
    ),
    DemoStep(
        "Claude, citing a document sent with the question (no search)",
        {
            "vendor": "anthropic",
            "model": provider("anthropic").default_model,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What does the memo say about sales?"},
                        {
                            "type": "document",
                            "title": "Q3 memo",
                            "source": "Sales grew 4% in the third quarter. Costs fell 2%.",
                        },
                    ],
                }
            ],
            "request_id": "demo-document",
        },
    ),
    DemoStep(
        "OpenAI, REQUIRED grounding through a rate limit (429 once, retried)",
        _ask(
            "openai",
            "What is the population of Tokyo? [[emulator:fault=429:1*1]]",
            grounded=True,
            grounding_mode="REQUIRED",
            user_location={"country": "JP"},
            request_id="demo-4",
        ),
    ),
    DemoStep(
        "Vertex, REQUIRED grounding where the model skips the search: fails closed",
        _ask(
            "vertex",
            "Summarise Pride and Prejudice. [[emulator:fault=no_search]]",
            grounded=True,
            grounding_mode="REQUIRED",
            request_id="demo-5",
        ),
        expect_failure=True,
    ),
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``demo`` subcommand."""
    parser = subparsers.add_parser(
        "demo",
        help="route sample requests through every provider against the built-in emulator",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--json", action="store_true", dest="json_output", help="print every response as JSON"
    )
    parser.add_argument(
        "--json-output", action="store_true", dest="json_output_old", help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="HTML",
        default=Path(tempfile.gettempdir()) / "grounding-router-demo-report.html",
        help="where to write the HTML report of the run (default: %(default)s)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run every demo step against a fresh emulator; 0 when each behaved as shown."""
    if args.json_output_old:
        print("grounding-router demo: --json-output is now --json", file=sys.stderr)
        args.json_output = True
    from rich.console import Console
    from rich.rule import Rule
    from rich.text import Text

    from router.commands.render import error_rows, print_error, print_response, response_rows
    from router.emulated import emulated_settings
    from router.emulator import Emulator
    from router.errors import RouterError
    from router.render.report_input import ReportRow
    from router.router import UnifiedLLMAdapter
    from router.types import LLMResponse

    console = Console(highlight=False)
    responses: list[LLMResponse] = []
    rows: list[ReportRow] = []
    surprises = 0
    with Emulator() as emulator:
        console.print(
            Text(
                f"grounding-router demo: running against the built-in emulator on "
                f"127.0.0.1:{emulator.port}, which speaks every provider's protocol "
                f"({labels()}). No keys, no "
                "network. For the real services set a provider's settings (`grounding-router "
                "providers` lists them) and use `grounding-router route`.",
                style="bold",
            )
        )
        settings = emulated_settings(
            emulator, retry_initial_delay_s=0.2, debug_grounding=args.settings.debug_grounding
        )
        with UnifiedLLMAdapter(settings) as router:
            for number, step in enumerate(DEMO_STEPS, start=1):
                console.print()
                console.print(Rule(Text(f"{number}. {step.title}")))
                console.print(Text(_describe(step.request), style="dim"))
                try:
                    response = router.route(step.request)
                except RouterError as error:
                    print_error(error, as_json=args.json_output)
                    console.print(
                        Text(
                            "A pipeline catching this error gets: "
                            + json.dumps(error.to_dict(), default=str),
                            style="dim",
                        )
                    )
                    surprises += not step.expect_failure
                    rows.extend(error_rows(error))
                    continue
                responses.append(response)
                rows.extend(response_rows(response))
                print_response(response, as_json=args.json_output)
                surprises += step.expect_failure
    console.print()
    _print_tld_summary(console, responses)
    _write_report(console, rows, args.report)
    return ExitCode.OK if surprises == 0 else ExitCode.FAILURE


def _write_report(console: Any, rows: list[Any], target: Path) -> None:
    """The run as an HTML report (``grounding-router report`` draws the same page)."""
    from rich.text import Text

    from router.render.html import write_rows_file

    try:
        write_rows_file(rows, target, title="grounding-router demo")
    except OSError as exc:
        console.print(Text(f"could not write the HTML report to {target}: {exc}", style="yellow"))
        return
    console.print()
    console.print(
        Text(
            f"HTML report of this run: {target} (open it in a browser: every cited passage is "
            "highlighted and tied to its source; nothing in it is fetched)",
            style="bold",
        ),
        soft_wrap=True,
    )


def _describe(request: dict[str, Any]) -> str:
    mode = request.get("grounding_mode", "AUTO") if request.get("grounded") else "ungrounded"
    extras = []
    if request.get("json_schema"):
        extras.append("json_schema")
    if request.get("user_location"):
        extras.append(f"user_location={request['user_location']}")
    question = request["messages"][-1]["content"]
    return (
        f"route({{vendor={request['vendor']!r}, model={request['model']!r}, "
        f"grounding={mode}{', ' + ', '.join(extras) if extras else ''}}}): {question}"
    )


def _print_tld_summary(console: Any, responses: list[Any]) -> None:
    """Counts of the citations' top-level domains per vendor (the ALS view in miniature)."""
    from rich.table import Table

    from als.als_ambient_utils import extract_tld_counts

    table = Table(title="citations by top-level domain (ALS)", title_justify="left")
    table.add_column("vendor")
    table.add_column("TLDs")
    for vendor in vendors():
        citations = [c for r in responses if r.vendor == vendor for c in r.citations]
        counts = extract_tld_counts(citations)
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        if citations:
            table.add_row(vendor, ", ".join(f".{tld} {n}" for tld, n in ranked))
    console.print(table)
