"""Exit codes of ``grounding-router``, shared by every subcommand (documented in the README)."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["ExitCode"]


class ExitCode(IntEnum):
    """What a ``grounding-router`` process tells its caller."""

    OK = 0
    FAILURE = 1  # an unexpected error; a bug report is welcome
    BAD_INPUT = 2  # bad flags, bad request, a file that cannot be read or written (argparse: 2)
    GROUNDING_REQUIRED_FAILED = 3  # REQUIRED grounding was asked for and not delivered
    PROVIDER_ERROR = 4  # the provider failed or rejected the call
    CONFIGURATION_ERROR = 5  # a key, project or location is missing
    RESPONSE_UNUSABLE = 6  # the provider's reply could not be used (e.g. invalid JSON)
    NOT_AVAILABLE = 9  # an optional extra the command needs is not installed (e.g. charts)
    INTERRUPTED = 130  # stopped by SIGINT/SIGTERM after flushing what was done
    BROKEN_PIPE = 141  # the reader of stdout went away (``| head``): stopped quietly, as on SIGPIPE
