"""The ``grounding-router`` command: demo, route, extract, compare, batch, validate, report, als,
emulator, providers.

Exit codes are listed in :class:`router.commands.exit_codes.ExitCode` and in the README.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Callable, Sequence

from pydantic import ValidationError

from adapters.registry import labels
from router import __version__
from router.commands import (
    als,
    batch,
    compare,
    demo,
    extract,
    providers,
    report,
    route,
    validate,
)
from router.commands import emulator as emulator_command
from router.commands.exit_codes import ExitCode
from router.logging import configure_logging
from router.settings import RouterSettings, settings_problems
from router.text.redaction import RedactingStream, register_secret
from router.text.terminal import show_warning

__all__ = ["build_parser", "main"]

_EPILOG = """\
exit codes: 0 ok, 1 unexpected failure, 2 bad input, 3 REQUIRED grounding failed,
4 provider error, 5 configuration error, 6 unusable provider reply, 9 optional extra
missing, 130 interrupted, 141 stdout closed by its reader (as on SIGPIPE).
Configuration comes from the environment and .env (see the README)."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, one subparser per subcommand."""
    parser = argparse.ArgumentParser(
        prog="grounding-router",
        description=(
            "Grounded answers from the web search of "
            f"{labels()}, with uniform "
            "citations and fail-closed REQUIRED grounding."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _add_log_options(parser, with_defaults=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo.register(subparsers)
    route.register(subparsers)
    extract.register(subparsers)
    compare.register(subparsers)
    batch.register(subparsers)
    validate.register(subparsers)
    report.register(subparsers)
    als.register(subparsers)
    emulator_command.register(subparsers)
    providers.register(subparsers)
    for subparser in subparsers.choices.values():
        # The same options after the subcommand too (``route ... --log-json``): there they only
        # override what was given before it, never reset it to a default.
        _add_log_options(subparser, with_defaults=False)
    return parser


def _add_log_options(parser: argparse.ArgumentParser, *, with_defaults: bool) -> None:
    """``--log-json`` and ``--log-level``; without defaults they set nothing unless given."""
    parser.add_argument(
        "--log-json",
        action="store_true",
        default=False if with_defaults else argparse.SUPPRESS,
        help="write log events as JSON lines on stderr",
    )
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        default="warning" if with_defaults else argparse.SUPPRESS,
        help="least severe log events shown on stderr (default warning; DEBUG_GROUNDING=true "
        "shows the forensic debug events)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        default=False if with_defaults else argparse.SUPPRESS,
        help="leave the response cache (GROUNDING_ROUTER_CACHE) out of this run",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    # Warnings of the SDKs can quote provider values (google-genai's unknown enum values).
    warnings.showwarning = show_warning
    try:
        args.settings = RouterSettings()
        if args.no_cache:
            args.settings = args.settings.model_copy(update={"cache": None})
    except ValidationError as exc:
        print(f"grounding-router: invalid configuration: {settings_problems(exc)}", file=sys.stderr)
        return ExitCode.CONFIGURATION_ERROR
    except ValueError as exc:
        print(f"grounding-router: invalid configuration: {exc}", file=sys.stderr)
        return ExitCode.CONFIGURATION_ERROR
    configure_logging(
        json_lines=args.log_json,
        level=args.log_level,
        debug_grounding=args.settings.debug_grounding,
    )
    if args.command != "batch" and sys.stderr.isatty():
        # A person waiting at a terminal sees each retry (a trickled reply can take minutes);
        # a batch shows its own progress instead.
        logging.getLogger("router.retry").setLevel(min(logging.INFO, _level(args.log_level)))
    run: Callable[[argparse.Namespace], int] = args.run
    for name, secret in args.settings.named_secrets().items():
        register_secret(secret, name=name)
    # Everything printed, results, logs and errors, passes the one redaction on its way out;
    # stdout carries answers, so only the configured secrets are cut there, not secret shapes.
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = RedactingStream(stdout, shapes=False)
    sys.stderr = RedactingStream(stderr)
    try:
        return run(args)
    except KeyboardInterrupt:
        print("grounding-router: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return _reader_went_away()
    except SystemExit as exc:
        # rich's consoles end the process with SystemExit(1) when stdout's reader has gone.
        if isinstance(exc.__context__, BrokenPipeError):
            return _reader_went_away()
        raise
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _level(name: str) -> int:
    return int(logging.getLevelName(name.upper()))


def _reader_went_away() -> int:
    """Stop quietly when stdout's reader has gone (``| head``), as Unix tools do on SIGPIPE.

    What is still buffered for stdout can never be delivered; pointing the descriptor at
    /dev/null keeps the interpreter's last flush from reporting the same broken pipe again.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
    os.close(devnull)
    return ExitCode.BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
