"""``grounding-router batch IN.jsonl -o OUT.jsonl``: run a file of requests at volume."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import warnings
from pathlib import Path

from router.batch.job import BatchEngine
from router.batch.stats import BatchSummary
from router.commands.exit_codes import ExitCode
from router.commands.grounding_flags import add_policy_flags, policy_from_args

__all__ = ["register"]

# Ray Data warns when an operator gets fewer blocks than it may run at once (a resumed job with
# little or nothing left to route) and advises more blocks: advice that does not apply here.
_RAY_POOL_ADVICE = "The m(in|ax)imum number of concurrent (actors|tasks) for"

_DESCRIPTION = """\
Run every request of a JSONL file (one LLMRequest object per line) and write one result line per
request to OUT: {"request_id", "ok", "line", "request", "response"} or, for a failure of any kind
(REQUIRED grounding not met, provider error, bad input line), {..., "ok": false, "error": {"type",
"reason", "message", "status_code", ...}}. Any line, however malformed, costs exactly one row.
Lines without a request_id, or with a blank one, get one derived from their line number and
content; a repeated id's row is renamed <id>#line<N>. Rows are written and flushed as results
arrive; --resume skips the request_ids already in OUT, so an interrupted or killed run can be
finished without duplicates. OUT must be a regular file and not the input; when it cannot be
written (disk full, read-only), the run stops with exit code 2, every row written kept.
Ctrl-C (or SIGTERM) stops feeding new requests, lets those in flight finish for --grace-s
seconds, flushes, prints the summary and exits 130; a second Ctrl-C stops at once.

--engine ray runs the same job on a Ray cluster (needs pip install 'grounding-router[ray]'): the
input is read by a Ray task and routed by a pool of actors (--actors MIN:MAX, one router each),
which write their rows as JSONL shards within --commit-s seconds of finishing them; OUT is a
directory of shards, or, when it ends in .jsonl, one file merged from the shards in OUT.shards/.
Resume comes from the ids committed with each shard (--checkpoint, default OUT.checkpoint beside
OUT); IN, OUT and the checkpoint may be object-store URIs.
--ray-address joins a running cluster (auto: the one ray start --head started on this machine);
without it (or RAY_ADDRESS) a local cluster is started for the run. Ctrl-C waits --grace-s for
the job to end, then leaves it: committed rows stay, and --resume does the rest.

A line may ask several providers at once: "vendors": ["openai", "vertex"] (optionally
"models": {vendor: model} and "require": "any" | "all") beside the request's fields. Its row is
{"request_id", "ok", "line", "request": {"vendors", "models", "require", ...}, "fanout":
{"providers": {vendor: {"ok", "response" | "error"}}, "aggregate"}}, with "error" when require
was not met. --max-rps spends one request of each vendor a line asks.

A line may carry its own "grounding_policy" (see README, Grounding validation); the grounding
policy flags below set the policy of every line that has none. A REQUIRED line whose answer
breaks a rule fails with reason "policy" and the rule in its error; the summary (and
--summary-json) shows coverage and support (p10/p50/p90) and the broken rules per vendor."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``batch`` subcommand."""
    parser = subparsers.add_parser(
        "batch",
        help="run a JSONL file of requests with REQUIRED grounding at volume",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="IN.jsonl", help="requests, one per line")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.jsonl",
        help="result rows (with --engine ray: a .jsonl file, or a directory of shards)",
    )
    parser.add_argument(
        "--concurrency", type=_positive_int, default=16, help="requests in flight (default 16)"
    )
    parser.add_argument(
        "--max-rps",
        type=_positive_float,
        default=None,
        metavar="R",
        help="at most R requests per second per vendor (default: no limit)",
    )
    parser.add_argument(
        "--workers",
        type=_positive_int,
        default=1,
        help="worker processes, each with its own event loop and SDK clients (default 1); "
        "the SDKs cost CPU per call, so a second core nearly doubles throughput",
    )
    parser.add_argument(
        "--engine",
        choices=["local", "ray"],
        default="local",
        help="local: this machine, in-process or --workers processes (default); ray: a Ray "
        "cluster, for jobs that spread over hosts, keys and regions or use object storage",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="with --engine ray: the cluster to join, e.g. 10.0.0.5:6379, or auto for the one "
        "started on this machine (default: a local cluster for this run)",
    )
    parser.add_argument(
        "--actors",
        type=_actor_range,
        metavar="MIN:MAX",
        help="with --engine ray: routing actors, scaled between MIN and MAX (default: one per "
        "32 of --concurrency, as many as the cluster holds); --concurrency is split between "
        "the actors running",
    )
    parser.add_argument(
        "--commit-s",
        type=float,
        metavar="S",
        help="with --engine ray: how long a finished row may wait before its shard is written, "
        "which is what a killed driver may lose (default 5)",
    )
    parser.add_argument(
        "--checkpoint",
        metavar="PATH",
        help="with --engine ray: where the ids of committed rows are kept (a path every node "
        "can reach, or an object-store URI)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--resume", action="store_true", help="continue OUT, skipping ids in it")
    mode.add_argument(
        "--overwrite", action="store_true", help="empty an existing OUT once the run starts"
    )
    parser.add_argument(
        "--summary-json", type=Path, metavar="FILE", help="also write the summary as JSON"
    )
    parser.add_argument(
        "--grace-s",
        type=float,
        default=10.0,
        help="on Ctrl-C, seconds to let in-flight requests finish (default 10)",
    )
    progress = parser.add_mutually_exclusive_group()
    progress.add_argument(
        "--progress", dest="progress", action="store_true", default=None, help="always draw"
    )
    progress.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never draw the bar"
    )
    add_policy_flags(parser)
    parser.set_defaults(run=run)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _actor_range(text: str) -> tuple[int, int]:
    low_text, colon, high_text = text.partition(":")
    try:
        low = int(low_text)
        high = int(high_text) if colon else low
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give MIN:MAX, e.g. 1:4") from None
    if not 1 <= low <= high:
        raise argparse.ArgumentTypeError(f"{text!r}: need 1 <= MIN <= MAX")
    return low, high


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Run the batch with signal handling; print the summary; return the exit code."""
    from router.batch.ray_engine import RayUnavailableError
    from router.commands.progress import BatchProgress
    from router.commands.summary_table import print_summary

    if args.engine == "ray":
        _quiet_ray()
    policy = policy_from_args(args)
    if policy is not None:  # the default of every line that sets no grounding_policy
        from router.grounding.report import GroundingPolicy

        args.settings = args.settings.model_copy(
            update={"grounding_policy": GroundingPolicy.model_validate(policy)}
        )
    try:
        with BatchProgress(enabled=args.progress) as progress:
            summary = asyncio.run(_run(args, progress))
    except (OSError, ValueError) as exc:
        # A missing or unreadable input, an output refused, full or read-only (the rows written
        # before are kept, and the message says so): all the files' fault, none a crash.
        print(f"grounding-router batch: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except RayUnavailableError as exc:
        print(f"grounding-router batch: {exc}", file=sys.stderr)
        return ExitCode.NOT_AVAILABLE
    except asyncio.CancelledError:
        print(
            "grounding-router batch: stopped at once; rows written so far are complete, "
            "run again with --resume to finish",
            file=sys.stderr,
        )
        return ExitCode.INTERRUPTED
    print_summary(summary)
    if args.summary_json:
        args.summary_json.write_text(json.dumps(summary.to_dict(), indent=2) + "\n")
    return ExitCode.INTERRUPTED if summary.interrupted else ExitCode.OK


def _quiet_ray() -> None:
    """Keep Ray's notices off this command's output; its errors still show.

    Ray logs its local cluster's defaults, its unset SIGTERM handler (signals are this
    command's), each dataset it runs and that dataset's progress (the checkpoint's too), and
    advises more blocks when an operator gets fewer than it may run: all of it would break up
    the progress bar and the summary.
    """
    try:
        import ray.data
    except ImportError:
        return  # the run itself says which extra is missing
    for name in ("ray", "ray.data"):
        logging.getLogger(name).setLevel(logging.ERROR)
    ray.data.DataContext.get_current().enable_progress_bars = False
    warnings.filterwarnings("ignore", message=_RAY_POOL_ADVICE, category=UserWarning)


def _engine(args: argparse.Namespace) -> BatchEngine:
    """The engine the flags ask for; a flag of the other engine is a mistake worth saying."""
    from router.batch import LocalEngine, RayEngine

    if args.engine == "ray":
        if args.workers != 1:
            raise ValueError(
                "--workers is the local engine's: with --engine ray, --actors MIN:MAX sizes "
                "the pool that routes"
            )
        commit = {} if args.commit_s is None else {"commit_s": args.commit_s}
        return RayEngine(
            address=args.ray_address, actors=args.actors, checkpoint=args.checkpoint, **commit
        )
    ray_flags = {
        "--ray-address": args.ray_address,
        "--actors": args.actors,
        "--commit-s": args.commit_s,
        "--checkpoint": args.checkpoint,
    }
    given = [flag for flag, value in ray_flags.items() if value is not None]
    if given:
        raise ValueError(f"{', '.join(given)}: for --engine ray only")
    return LocalEngine(workers=args.workers)


async def _run(args: argparse.Namespace, progress: object) -> BatchSummary:
    from router.batch import arun_batch

    stop = asyncio.Event()
    current = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def on_signal() -> None:
        if stop.is_set() and current is not None:
            current.cancel()  # the second signal: stop at once
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, on_signal)
    try:
        return await arun_batch(
            args.input,
            args.output,
            settings=args.settings,
            concurrency=args.concurrency,
            max_rps=args.max_rps,
            resume=args.resume,
            overwrite=args.overwrite,
            stop=stop,
            grace_s=args.grace_s,
            on_progress=progress,  # type: ignore[arg-type]
            engine=_engine(args),
        )
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
