"""Subcommands whose implementation has not landed yet: they say so and exit non-zero."""

from __future__ import annotations

import argparse
import sys

from router.commands.exit_codes import ExitCode

__all__ = ["register_pending"]


def register_pending(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    description: str,
) -> None:
    """Add a subcommand that explains what it will do, then exits with NOT_AVAILABLE."""
    parser = subparsers.add_parser(name, help=summary, description=description)

    def run(_args: argparse.Namespace) -> int:
        print(
            f"grounding-router {name}: not available yet in this version. {description}",
            file=sys.stderr,
        )
        return ExitCode.NOT_AVAILABLE

    parser.set_defaults(run=run)
