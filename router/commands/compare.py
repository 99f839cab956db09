"""``grounding-router compare``: one question to several providers, and where they agree."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from adapters.registry import vendors
from router.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from router.aggregate import Aggregate
    from router.fanout import FanoutResult

__all__ = ["register"]

_DESCRIPTION = """\
Ask several providers the same question at once (route_many) and show each provider's short
answer or error, then every cited source with the providers that cite it and their ranks, then
how far each pair of providers agrees (the Jaccard overlap of the URLs and of the domains they
cite). The model of each vendor comes from --model VENDOR=MODEL, else
GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>, else the registry's default (grounding-router
providers). Exit code: 0 when --require is met, else the code of the first provider that
failed, in --vendors order.

examples:
  grounding-router compare "Who won the 2026 Giro d'Italia?"
  grounding-router compare "Current ECB deposit rate?" --vendors openai,vertex --required
  grounding-router compare "Best hiking maps?" --location DE --model openai=gpt-5-mini --json
  grounding-router compare "Current ECB deposit rate?" --json --spec"""

_ANSWER_CHARS = 240


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
    from router.fanout import route_many
    from router.unified_llm_adapter import UnifiedLLMAdapter

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
        _print_for_people(result)
    return code


def _print_json(result: FanoutResult, *, spec: bool) -> None:
    import json

    from router.terminal import json_for_terminal

    data = result.to_spec() if spec else result.to_dict()
    print(json_for_terminal(json.dumps(data, indent=2, ensure_ascii=False)))


def _print_for_people(result: FanoutResult) -> None:
    from rich.console import Console
    from rich.text import Text

    from router.terminal import terminal_safe
    from router.types import LLMResponse

    console = Console(highlight=False)
    for vendor, outcome in result.outcomes.items():
        if isinstance(outcome, LLMResponse):
            head = (
                f"{vendor} ({terminal_safe(outcome.model, single_line=True)}): ok · "
                f"grounded: {outcome.grounded_effective} · citations: {len(outcome.citations)}"
            )
            answer = terminal_safe(outcome.content, single_line=True)
            if len(answer) > _ANSWER_CHARS:
                answer = answer[: _ANSWER_CHARS - 1] + "…"
            console.print(Text(head, style="bold"))
            console.print(Text(f"  {answer}"))
        else:
            reason = f" ({outcome.reason})" if outcome.reason else ""
            console.print(Text(f"{vendor}: {type(outcome).__name__}{reason}", style="bold red"))
            console.print(Text(f"  {terminal_safe(outcome.message, single_line=True)}"))
    console.print()
    console.print(_sources_table(result.aggregate))
    if len(result.aggregate.providers) > 1:
        console.print(_agreement_table(result.aggregate))


def _sources_table(aggregate: Aggregate) -> object:
    from rich.table import Table
    from rich.text import Text

    from router.commands.render import shortened
    from router.terminal import terminal_safe

    table = Table(title="sources", title_justify="left")
    for column in ("domain", "cited by", "seen by", "ranks", "url"):
        table.add_column(column, overflow="fold")
    for entry in aggregate.entries:
        ranks = ", ".join(f"{vendor} {rank or '-'}" for vendor, rank in entry["ranks"].items())
        domain = terminal_safe(entry["source_domain"], single_line=True)
        if entry["matched_by"] == "domain":
            domain += " (by domain)"
        table.add_row(
            Text(domain),
            Text(", ".join(entry["providers_cited"]) or "-"),
            Text(", ".join(entry["providers_seen"]) or "-"),
            Text(ranks),
            Text(shortened(terminal_safe(entry["url"], single_line=True))),
        )
    return table


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
