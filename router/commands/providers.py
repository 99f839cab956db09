"""``grounding-router providers``: the provider registry, one row per vendor."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from adapters.registry import PROVIDERS, ProviderRow
from router.commands.exit_codes import ExitCode

__all__ = ["register"]

_DESCRIPTION = """\
List the providers this installation can route to: the vendor name a request uses, the default
model of the demo, what the provider can do (streaming, citations, JSON mode, whether grounded
JSON takes two calls, the unit of the provider's own citation offsets) and the settings it reads.

examples:
  grounding-router providers
  grounding-router providers --json"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``providers`` subcommand."""
    parser = subparsers.add_parser(
        "providers",
        help="list the providers (vendors) and what each can do",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the registry; always succeeds."""
    rows = list(PROVIDERS.values())
    if args.json:
        print(json.dumps([_as_dict(row) for row in rows], indent=2))
        return ExitCode.OK
    for row in rows:
        print(f"{row.vendor}: {row.label}, {row.summary}")
        print(f"  default model  {row.default_model}")
        print(f"  capabilities   {_capabilities(row)}")
        print(f"  settings       {', '.join(row.settings)}")
    return ExitCode.OK


def _capabilities(row: ProviderRow) -> str:
    capabilities = row.capabilities
    flags = [
        name
        for name, present in (
            ("streaming", capabilities.streaming),
            ("citations", capabilities.citations),
            ("json_mode", capabilities.json_mode),
            ("two_step_json", capabilities.two_step_json),
        )
        if present
    ]
    return ", ".join([*flags, f"offsets in {capabilities.offset_unit}"])


def _as_dict(row: ProviderRow) -> dict[str, object]:
    fields = asdict(row)
    fields["settings"] = list(row.settings)
    return fields
