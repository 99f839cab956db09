"""``grounding-router compare``: one question to several providers, and where they agree."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from adapters.registry import vendors
from router.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from router.aggregate import Aggregate
    from router.fanout import FanoutResult
    from router.render.terminal_block import LinkChoice

__all__ = ["register"]

_DESCRIPTION = """\
Ask several providers the same question at once (route_many) and show each provider's answer
with its numbered sources, or its error, then every cited source with the providers that cite
it and their ranks, then how far each pair of providers agrees (the Jaccard overlap of the URLs
and of the domains they cite). The model of each vendor comes from --model VENDOR=MODEL, else
GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>, else the registry's default (grounding-router
providers). Exit code: 0 when --require is met, else the code of the first provider that
failed, in --vendors order.

examples:
  grounding-router compare "Who won the 2026 Giro d'Italia?"
  grounding-router compare "Current ECB deposit rate?" --vendors openai,vertex --required
  grounding-router compare "Best hiking maps?" --location DE --model openai=gpt-5-mini --json
  grounding-router compare "Current ECB deposit rate?" --json --spec"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``compare`` subcommand."""
    parser = subparsers.add_parser(
        "compare",
        help="ask several providers one question and compare their sources",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("question", help="the question (one user message)")
    parser.add_argument(
        "--vendors",
        type=_vendor_list,
        default=list(vendors()),
        metavar="V,V,...",
        help=f"the providers to ask (default: all of {', '.join(vendors())})",
    )
    parser.add_argument(
        "--model",
        action="append",
        default=[],
        type=_model_choice,
        metavar="VENDOR=MODEL",
        help="the model of one vendor (repeatable)",
    )
    parser.add_argument(
        "--required",
        action="store_true",
        help="REQUIRED grounding: a provider that did not search and cite counts as failed",
    )
    parser.add_argument(
        "--require",
        choices=["any", "all"],
        default="any",
        help="what the whole call needs: any provider's answer (default) or every provider's",
    )
    parser.add_argument("--location", metavar="CC", help="user country, ISO-2 (e.g. DE)")
    parser.add_argument("--timeout", type=float, metavar="S", help="timeout per call, seconds")
    parser.add_argument(
        "--json", action="store_true", help="print every outcome and the aggregate as JSON"
    )
    parser.add_argument(
        "--spec",
        action="store_true",
        help="with --json: print the multi-provider spec's shape instead (top-level citations "
        "of {canonical_url, domains, providers_cited, title}, and providers[i] = "
        "{provider, citations} in --vendors order)",
    )
    from router.commands.render import add_view_options

    add_view_options(parser)
    parser.set_defaults(run=run)


def _vendor_list(text: str) -> list[str]:
    chosen = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in vendors()]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"unknown vendor(s) {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(vendors())}"
        )
    return chosen


def _model_choice(text: str) -> tuple[str, str]:
    vendor, _, model = text.partition("=")
    if not model.strip() or vendor.strip().lower() not in vendors():
        raise argparse.ArgumentTypeError(
            f"expected VENDOR=MODEL with VENDOR one of {', '.join(vendors())}, not {text!r}"
        )
    return vendor.strip().lower(), model.strip()


def run(args: argparse.Namespace) -> int:
    """Ask, print, and return the exit code."""
    from router.commands.route import exit_code_for
    from router.errors import FanoutError, RouterError
    from router.router import UnifiedLLMAdapter, route_many

    request: dict[str, Any] = {
        "messages": [{"role": "user", "content": args.question}],
        "grounded": True,
        "grounding_mode": "REQUIRED" if args.required else "AUTO",
    }
    if args.location:
        request["user_location"] = {"country": args.location}
    if args.timeout is not None:
        request["timeout_s"] = args.timeout
    try:
        with UnifiedLLMAdapter(args.settings) as router:
            result = route_many(
                request,
                args.vendors,
                models=dict(args.model),
                require=args.require,
                router=router,
            )
            code = ExitCode.OK
    except FanoutError as error:
        result = error.result  # type: ignore[assignment]
        first_failure = next(iter(error.errors.values()))
        code = exit_code_for(first_failure)
    except RouterError as error:
        from router.commands.render import print_error

        print_error(error, as_json=args.json or args.spec)
        return exit_code_for(error)
    if args.json or args.spec:
        _print_json(result, spec=args.spec)
    else:
        from router.commands.render import link_choice

        _print_for_people(result, link_choice(args))
    if args.html is not None:
        from router.commands.render import write_html
        from router.render.report_input import rows_from_record

        rows = rows_from_record(result.to_dict())[1]
        write_html(args.html, rows, title="grounding report: compare")
    return code


def _print_json(result: FanoutResult, *, spec: bool) -> None:
    import json

    from router.text.terminal import json_for_terminal

    data = result.to_spec() if spec else result.to_dict()
    print(json_for_terminal(json.dumps(data, indent=2, ensure_ascii=False)))


def _print_for_people(result: FanoutResult, links: LinkChoice = "auto") -> None:
    from rich.text import Text

    from router.render.terminal_block import console_for, links_supported, print_answer_block
    from router.text.terminal import terminal_safe
    from router.types import LLMResponse

    console = console_for(links)
    show_links = links_supported(console, links)
    for vendor, outcome in result.outcomes.items():
        if isinstance(outcome, LLMResponse):
            head = (
                f"{vendor} ({terminal_safe(outcome.model, single_line=True)}): ok · "
                f"grounded: {outcome.grounded_effective} · citations: {len(outcome.citations)}"
            )
            console.print(Text(head, style="bold"))
            print_answer_block(console, outcome.model_dump(mode="json"), links=show_links)
        else:
            reason = f" ({outcome.reason})" if outcome.reason else ""
            console.print(Text(f"{vendor}: {type(outcome).__name__}{reason}", style="bold red"))
            console.print(Text(f"  {terminal_safe(outcome.message, single_line=True)}"))
        console.print()
    _print_sources(console, result.aggregate)
    if len(result.aggregate.providers) > 1:
        console.print(_agreement_table(result.aggregate))


def _print_sources(console: Any, aggregate: Aggregate) -> None:
    """Every source any provider gave: who cites it, who only saw it, ranks, the whole URL."""
    from rich.text import Text

    from router.text.terminal import terminal_safe

    console.print(Text("sources", style="bold"))
    for number, entry in enumerate(aggregate.entries, start=1):
        ranks = ", ".join(f"{vendor} {rank or '-'}" for vendor, rank in entry["ranks"].items())
        domain = terminal_safe(entry["source_domain"], single_line=True)
        if entry["matched_by"] == "domain":
            domain += " (by domain)"
        facts = (
            f"[{number}] {domain} · cited by {', '.join(entry['providers_cited']) or '-'} · "
            f"seen by {', '.join(entry['providers_seen']) or '-'} · ranks {ranks}"
        )
        console.print(Text(facts))
        url = terminal_safe(entry["url"], single_line=True)
        console.print(Text(f"    {url}", style="dim"), soft_wrap=True)


def _agreement_table(aggregate: Aggregate) -> object:
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title="agreement: shared cited URLs / domains (Jaccard; + sources joined by domain only)",
        title_justify="left",
    )
    table.add_column("")
    for vendor in aggregate.providers:
        table.add_column(vendor)
    pairs = {tuple(pair["providers"]): pair for pair in aggregate.agreement}
    for row in aggregate.providers:
        cells = []
        for column in aggregate.providers:
            pair = pairs.get((row, column)) or pairs.get((column, row))
            if row == column or pair is None:
                cells.append(Text("-"))
                continue
            cell = f"{_share(pair['url_jaccard'])} / {_share(pair['domain_jaccard'])}"
            if pair["domain_joins"]:
                cell += f" (+{pair['domain_joins']} by domain)"
            cells.append(Text(cell))
        table.add_row(Text(row), *cells)
    return table


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
