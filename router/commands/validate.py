"""``grounding-router validate IN.jsonl``: check a batch file and price it before a cent is spent.

Also ``batch --dry-run``, which prints the same plan for the batch's own flags.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from router.commands.exit_codes import ExitCode

__all__ = ["add_input_format_flag", "print_plan", "register", "run"]

_DESCRIPTION = """\
Check every line of a batch input as `grounding-router batch` would (JSON, request fields,
vendors, repeated request_ids, what each provider supports), list the vendors and models it asks
and estimate what the run would cost at list price: input tokens from the prompt (4 characters a
token), output tokens from each request's max_output_tokens (else --output-tokens), and one
search per grounded call at the vendor's search fee (router/pricing; a model may search more
than once, and search results read as input are not counted). Nothing is sent to a provider.
Exits 2 when a line is invalid, so it can gate a pipeline.

examples:
  grounding-router validate requests.jsonl
  grounding-router validate requests.jsonl --json
  grounding-router validate openai_batch.jsonl --input-format openai-batch"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``validate`` subcommand."""
    parser = subparsers.add_parser(
        "validate",
        help="check a batch input file and estimate its cost, sending nothing",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="IN.jsonl", help="requests, one per line (- for stdin)")
    add_input_format_flag(parser)
    add_output_tokens_flag(parser)
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")
    parser.set_defaults(run=run)


def add_input_format_flag(parser: argparse.ArgumentParser) -> None:
    """``--input-format``: this router's JSONL, or OpenAI's Batch API format."""
    parser.add_argument(
        "--input-format",
        choices=["jsonl", "openai-batch"],
        default="jsonl",
        help="jsonl: one request per line (default); openai-batch: OpenAI Batch API lines "
        "(custom_id, method, url, body), each read as a grounded OpenAI request",
    )


def add_output_tokens_flag(parser: argparse.ArgumentParser) -> None:
    """``--output-tokens``: the estimate's output tokens for a request that sets no limit."""
    from router.batch.plan import DEFAULT_OUTPUT_TOKENS

    parser.add_argument(
        "--output-tokens",
        type=int,
        default=DEFAULT_OUTPUT_TOKENS,
        metavar="N",
        help="output tokens the estimate assumes per call when a request sets no "
        f"max_output_tokens (default {DEFAULT_OUTPUT_TOKENS})",
    )


def run(args: argparse.Namespace) -> int:
    """Print the plan of IN; 2 when a line is invalid or the file cannot be read."""
    from router.commands.file_args import prepared_input

    try:
        with prepared_input(args.input, "IN.jsonl", input_format=args.input_format) as path:
            plan = make_plan(path, args)
    except OSError as exc:
        print(f"grounding-router validate: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if args.json:
        print(json.dumps(plan.to_dict(), indent=2))
    else:
        print_plan(plan, args.input)
    return ExitCode.BAD_INPUT if plan.invalid else ExitCode.OK


def make_plan(path: Path, args: argparse.Namespace) -> Any:
    """The :class:`router.batch.plan.BatchPlan` of the file at ``path``."""
    from router.batch.input import BatchInput
    from router.batch.plan import plan_batch
    from router.respond import load_prices

    book = load_prices(args.settings.prices)
    return plan_batch(
        BatchInput(path), book, raw_lines=_json_values(path), output_tokens=args.output_tokens
    )


def print_plan(plan: Any, name: str) -> None:
    """The plan for people: lines, problems, calls per model, the estimate and any hint."""
    from router.text.terminal import terminal_safe

    print(f"{terminal_safe(name)}: {plan.lines} lines, {plan.valid} valid, {plan.invalid} invalid")
    for problem in plan.problems:
        print(f"  {terminal_safe(problem)}")
    if plan.invalid > len(plan.problems):
        print(f"  ... and {plan.invalid - len(plan.problems)} more")
    if plan.models:
        print("calls (vendor model: calls, estimated tokens in/out, searches, cost):")
    for (vendor, model), calls in sorted(plan.models.items()):
        cost = f"{calls.cost:.4f} {calls.currency}" if calls.currency else "no price for this model"
        if calls.currency and calls.unpriced:
            cost += f" ({calls.unpriced} unpriced)"
        print(
            f"  {vendor} {terminal_safe(model)}: {calls.calls}, "
            f"{calls.input_tokens:,}/{calls.output_tokens:,}, {calls.searches}, {cost}"
        )
    totals = ", ".join(f"{total:.4f} {currency}" for currency, total in plan.totals.items())
    print(f"estimated cost: {totals or 'nothing priced'} (list price, before any call)")
    if plan.unpriced:
        print(f"  {plan.unpriced} calls have no price: their cost is unknown, not zero")
    if plan.openai_batch_lines:
        print(
            f"hint: {plan.openai_batch_lines} lines look like OpenAI Batch API input "
            "(custom_id, method, url, body); read them with --input-format openai-batch"
        )


def _json_values(path: Path) -> Iterator[Any]:
    """The JSON value of each line of ``path`` that parses (for the format hint)."""
    from router.batch.input import MAX_LINE_BYTES
    from router.text.jsonl import UnreadableLineError, loads, read_lines

    with path.open("rb") as handle:
        for line in read_lines(handle, max_bytes=MAX_LINE_BYTES):
            if line.blank or line.cut:
                continue
            try:
                yield loads(line.data.decode("utf-8", errors="replace"))
            except UnreadableLineError:
                continue
