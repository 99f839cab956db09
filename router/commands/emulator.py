"""``grounding-router emulator``: serve the loopback provider emulator in the foreground."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING

from router.commands.exit_codes import ExitCode

if TYPE_CHECKING:
    from router.emulator import Emulator

__all__ = ["register", "run"]

_DESCRIPTION = """\
Serves the providers' wire protocols on 127.0.0.1 (OpenAI Responses, Vertex AI and Gemini API
generateContent, Perplexity and OpenRouter chat completions, Anthropic Messages), with
synthesised grounded answers (or recorded ones with --replay) and optional faults, so the
router, the demo and batch runs work without keys or network. Runs until Ctrl-C.

fault specs: KIND[:ARG][*COUNT][@API], e.g. 429:2*1 (one 429 with Retry-After: 2, then
success), 500@vertex (Vertex requests only), or rates SPEC=RATE,... (e.g.
429*1=0.1,500=0.05), chosen per request text.
Kinds: 429 500 503 529 400 401 delay hang drop truncate non_json html no_search no_citations
empty_grounding trickle_headers trickle_body trickle_chunks continue_flood.
APIs: openai vertex gemini perplexity openrouter anthropic.
A request can also pick its own fault with the X-Emulator-Fault header or a
[[emulator:fault=SPEC]] directive in its prompt."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``emulator`` subcommand."""
    parser = subparsers.add_parser(
        "emulator",
        help="serve the loopback provider emulator in the foreground",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)"
    )
    parser.add_argument(
        "--latency-ms", type=float, default=0.0, help="latency added to every reply (default: 0)"
    )
    parser.add_argument("--fault", metavar="SPEC", help="fault for every request, or SPEC=RATE,...")
    parser.add_argument("--seed", type=int, default=0, help="seed of a fault rate mix (default: 0)")
    parser.add_argument("--replay", metavar="DIR", help="serve recorded bodies from DIR instead")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, *, wait: Callable[[], None] | None = None) -> int:
    """Serve until interrupted; ``wait`` blocks until it is time to stop (tests pass their own)."""
    from router.emulator import Emulator, FaultPlan, FaultSpecError

    try:
        faults = FaultPlan.parse(args.fault, seed=args.seed) if args.fault else None
        emulator = Emulator(
            latency_s=args.latency_ms / 1000, faults=faults, replay=args.replay, port=args.port
        )
    except (FaultSpecError, NotADirectoryError, ValueError) as exc:
        print(f"grounding-router emulator: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        emulator.start()
    except OSError as exc:
        # A busy or privileged port is the caller's input to change, not a fault of ours.
        print(
            f"grounding-router emulator: cannot listen on --port {args.port}: {exc}",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    waiting = contextlib.nullcontext(wait) if wait else _signals_end_the_wait()
    with waiting as block:
        try:
            _announce(emulator)
            block()
        except KeyboardInterrupt:
            pass  # Ctrl-C is how this command is meant to end
        finally:
            emulator.stop()
    print("emulator stopped", flush=True)
    return ExitCode.OK


def _announce(emulator: Emulator) -> None:
    from router.emulated import emulated_environment

    exports = "".join(
        f"  export {name}={value}\n" for name, value in emulated_environment(emulator).items()
    )
    print(
        f"OpenAI Responses : {emulator.openai_base_url}\n"
        f"Vertex AI        : {emulator.vertex_base_url}\n"
        f"Gemini API       : {emulator.gemini_base_url}\n"
        f"Perplexity       : {emulator.perplexity_base_url}\n"
        f"OpenRouter       : {emulator.openrouter_base_url}\n"
        f"Anthropic        : {emulator.anthropic_base_url}\n"
        "\n"
        f"Point the router at it with:\n{exports}"
        "Press Ctrl-C to stop.",
        flush=True,
    )


@contextlib.contextmanager
def _signals_end_the_wait() -> Iterator[Callable[[], None]]:
    """Yield a wait that SIGINT or SIGTERM ends; the handlers stay until shutdown is done.

    Keeping them through shutdown matters: ``timeout`` and process managers signal the whole
    process group, so a second signal can arrive while the server is closing.
    """
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    def wait() -> None:
        while not stop.wait(3600):
            pass

    if threading.current_thread() is not threading.main_thread():
        yield wait  # signals reach only the main thread; an embedding caller stops us itself
        return
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield wait
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
