"""``grounding-router batch IN.jsonl -o OUT.jsonl``: run a file of requests at volume."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import tempfile
import warnings
from contextlib import AbstractContextManager, nullcontext, redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.batch.file_totals import FileTotals
from router.batch.job import BatchEngine
from router.batch.retry_failed import RetryPlan
from router.batch.stats import BatchSummary
from router.commands.exit_codes import ExitCode
from router.commands.file_args import (
    FileArgumentError,
    add_save_replies_flag,
    check_output_file,
    is_remote,
    prepared_input,
    reply_saver,
)
from router.commands.grounding_flags import add_policy_flags, policy_from_args
from router.commands.validate import add_input_format_flag, add_output_tokens_flag

if TYPE_CHECKING:
    from router.batch.ray_engine.retry import TakenOut

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
was not met. --max-rps counts each call to each vendor a line asks, retries included.

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
    parser.add_argument("input", metavar="IN.jsonl", help="requests, one per line (- for stdin)")
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.jsonl",
        help="result rows (with --engine ray: a .jsonl file, or a directory of shards); - "
        "writes them to stdout when the run ends, the summary going to stderr",
    )
    parser.add_argument(
        "--concurrency", type=_positive_int, default=16, help="requests in flight (default 16)"
    )
    parser.add_argument(
        "--max-rps",
        type=_positive_float,
        default=None,
        metavar="R",
        help="at most R provider calls per second per vendor and credential, every attempt "
        "counted (default: no limit)",
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
    mode.add_argument(
        "--retry-failed",
        nargs="?",
        const="all",
        choices=["all", "transient"],
        metavar="all|transient",
        help="run the failed rows of OUT again, each replaced in its place once: all of them "
        "(the default), or =transient for provider failures that may pass (429, 5xx, "
        "timeouts); the rest of the input is resumed too (with --engine ray: taken out of "
        "the job's commits, the new rows merged in shard order)",
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
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="check every line and estimate the cost, as validate does; send nothing",
    )
    add_input_format_flag(parser)
    add_output_tokens_flag(parser)
    add_save_replies_flag(parser)
    parser.add_argument(
        "--max-cost",
        type=_positive_float,
        metavar="USD",
        help="stop feeding new requests once the estimated cost of this run's answers passes "
        "USD (list prices); those in flight finish, as on Ctrl-C, so the spend may pass it by "
        "what was in flight; --resume continues",
    )
    parser.add_argument(
        "--fail-on",
        type=_fail_on,
        default=frozenset(),
        metavar="WHAT[,WHAT]",
        help="exit non-zero when rows of this run failed so: invalid (a line that is not a "
        "request: exit 2), required (REQUIRED grounding not met: 3), provider (a provider "
        "error: 4), any (any failed row); e.g. --fail-on invalid,required for CI",
    )
    add_policy_flags(parser)
    parser.set_defaults(run=run)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


# What --fail-on names, the row outcomes (router.batch.stats.outcome_of) it covers and the exit
# code it gives, in the order they are tried.
_FAIL_ON: dict[str, tuple[frozenset[str], ExitCode]] = {
    "invalid": (frozenset({"bad_input"}), ExitCode.BAD_INPUT),
    "required": (
        frozenset({"required_failed", "fanout_failed"}),
        ExitCode.GROUNDING_REQUIRED_FAILED,
    ),
    "provider": (frozenset({"provider_error"}), ExitCode.PROVIDER_ERROR),
    "any": (frozenset(), ExitCode.FAILURE),  # every outcome but ok
}


def _fail_on(text: str) -> frozenset[str]:
    names = frozenset(name.strip() for name in text.split(",") if name.strip())
    unknown = sorted(names - _FAIL_ON.keys())
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give one or more of {', '.join(_FAIL_ON)}, comma-separated"
        )
    return names


def failure_exit(outcomes: dict[str, int], fail_on: frozenset[str]) -> ExitCode | None:
    """The exit code ``--fail-on`` asks for given a run's row ``outcomes``, or None."""
    for name, (covered, code) in _FAIL_ON.items():
        if name not in fail_on:
            continue
        failed = {o for o, n in outcomes.items() if n and o != "ok"}
        if failed & covered or (name == "any" and failed):
            return code
    return None


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
    """Run the batch; with ``-o -``, into a file first whose rows then go to stdout, every
    message and the summary going to stderr."""
    if args.output != "-":
        return _run_batch(args)
    if args.resume or args.retry_failed is not None or args.engine != "local":
        print(
            "grounding-router batch: cannot write - (-o): --resume, --retry-failed and "
            "--engine ray read OUT back, so they need a file",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    stdout = sys.stdout
    with tempfile.TemporaryDirectory(prefix="grounding-router-") as folder:
        args.output = str(Path(folder) / "out.jsonl")
        with redirect_stdout(sys.stderr):
            code = _run_batch(args)
        rows = Path(args.output)
        if rows.exists():
            with rows.open(encoding="utf-8", newline="") as handle:
                for line in handle:
                    stdout.write(line)
            stdout.flush()
    return code


def _run_batch(args: argparse.Namespace) -> int:
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
        with _input_file(args) as source:
            if args.engine == "local":
                check_output_file(
                    Path(args.output),
                    "-o",
                    resume=args.resume or args.retry_failed is not None,
                    overwrite=args.overwrite,
                )
            if args.dry_run:
                return _dry_run(args, source)
            retry = _take_out_failed(args, source) if args.retry_failed else None
            with BatchProgress(enabled=args.progress) as progress:
                try:
                    summary = asyncio.run(_run(args, source, progress))
                finally:
                    if retry is not None:
                        _put_back(args, retry)
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
    report = summary.to_dict()
    limit = getattr(args, "cost_limit", None)
    if limit is not None and limit.reached:
        report["stopped_by"] = "max_cost"
        print(
            f"stopped by --max-cost {args.max_cost:g} USD: the estimated cost of this run's "
            f"answers reached {limit.spent:.4f} USD; requests in flight finished, the rest "
            "have no row: run again with --resume (and a higher --max-cost) to finish"
        )
    if args.resume:
        report["file"] = _whole_output(args).to_dict()
    if args.summary_json:
        args.summary_json.write_text(json.dumps(report, indent=2) + "\n")
    invalid = summary.outcomes.get("bad_input", 0)
    if invalid:
        print(
            f"grounding-router batch: {invalid} of {summary.done} lines run were not valid "
            "requests; each has an error row saying why (--fail-on invalid makes this exit 2)",
            file=sys.stderr,
        )
    if summary.interrupted:
        return ExitCode.INTERRUPTED
    return failure_exit(summary.outcomes, args.fail_on) or ExitCode.OK


def _input_file(args: argparse.Namespace) -> AbstractContextManager[str | Path]:
    """The input to run: checked, and copied first when it is stdin or in OpenAI's format.

    A Ray job's files may be object-store URIs, and its output a directory of shards: Ray
    checks those itself.
    """
    if is_remote(args.input) and args.input_format == "jsonl":
        return nullcontext(args.input)
    return prepared_input(args.input, "IN.jsonl", input_format=args.input_format)


def _whole_output(args: argparse.Namespace) -> FileTotals:
    """Print the totals of every run that wrote OUT (this one resumed it); return them.

    The local engine's come from the rows of OUT, a Ray job's from its checkpoint (the facts of
    every committed row: :mod:`router.batch.ray_engine.totals`).
    """
    from router.batch.file_totals import file_totals

    if args.engine == "ray":
        from router.batch.ray_engine.totals import job_totals

        totals, what = job_totals(args.output, args.checkpoint), "job"
    else:
        totals, what = file_totals(Path(args.output)), "file"
    outcomes = ", ".join(f"{name} {count}" for name, count in sorted(totals.outcomes.items()))
    cost = ", ".join(f"{total:.4f} {currency}" for currency, total in sorted(totals.cost.items()))
    print(f"whole {what} after resume: {totals.rows} rows ({outcomes or 'none'})")
    if cost:
        print(f"  estimated cost of its answers: {cost}")
    return totals


def _take_out_failed(args: argparse.Namespace, source: str | Path) -> RetryPlan | TakenOut:
    """Take OUT's failed rows out so that a resumed run routes them again (see
    :mod:`router.batch.retry_failed`; on Ray, :mod:`router.batch.ray_engine.retry`)."""
    from router.batch.input import BatchInput
    from router.batch.retry_failed import take_out_failed
    from router.batch.seen_ids import SeenIds

    args.resume = True
    if args.engine == "ray":
        return _take_out_of_commits(args, source)
    output = Path(args.output)
    if not output.is_file():
        raise FileArgumentError("read", output, "-o", "no such file: nothing to retry")
    with SeenIds() as input_ids:
        input_ids.update(item.request_id for item in BatchInput(Path(source)))
        return take_out_failed(output, input_ids, args.retry_failed)


def _take_out_of_commits(args: argparse.Namespace, source: str | Path) -> TakenOut:
    """The Ray job's failed rows uncommitted, after the checks and recovery a run makes."""
    from router.batch.ray_engine import require_ray
    from router.batch.seen_ids import SeenIds

    require_ray()
    from router.batch.ray_engine.commits import committed_files, recover
    from router.batch.ray_engine.layout import absolute, plan_layout, prepare
    from router.batch.ray_engine.retry import input_ids, take_out_failed

    layout = plan_layout(args.output, args.checkpoint)
    prepare(layout, absolute(str(source)), resume=True, overwrite=False)
    recover(layout)
    if not committed_files(layout):
        raise ValueError(f"--retry-failed: {args.output} holds no committed rows to retry")
    with SeenIds() as ids:
        ids.update(input_ids(absolute(str(source))))
        return take_out_failed(layout, ids, args.retry_failed)


def _put_back(args: argparse.Namespace, plan: RetryPlan | TakenOut) -> None:
    from router.batch.retry_failed import put_back_in_place

    if isinstance(plan, RetryPlan):
        replaced = put_back_in_place(Path(args.output), plan)
        where = "each in its place"
    else:
        from router.batch.ray_engine.layout import plan_layout

        try:
            replaced = plan.rerun(plan_layout(args.output, args.checkpoint))
        finally:
            plan.close()
        where = "each committed once"
    print(
        f"grounding-router batch: --retry-failed ran {replaced} of {plan.taken} failed rows "
        f"again, {where}",
        file=sys.stderr,
    )


def _dry_run(args: argparse.Namespace, source: str | Path) -> int:
    """Print what the run would do and cost, sending nothing; 2 when a line is invalid."""
    from router.commands.validate import make_plan, print_plan

    plan = make_plan(Path(source), args)
    print_plan(plan, args.input)
    print("dry run: nothing was sent and OUT was not touched")
    return ExitCode.BAD_INPUT if plan.invalid else ExitCode.OK


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
        if args.save_replies is not None:
            raise ValueError("--save-replies: for --engine local only")
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
    if args.save_replies is not None and args.workers != 1:
        raise ValueError("--save-replies: keeps the replies of one process, not with --workers")
    saver = reply_saver(args.save_replies) if args.save_replies is not None else None
    return LocalEngine(
        workers=args.workers, save_replies=saver.folder if saver is not None else None
    )


async def _run(args: argparse.Namespace, source: str | Path, progress: object) -> BatchSummary:
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
    on_progress: Any = progress
    if args.max_cost is not None:
        from router.batch.budget import CostLimit

        on_progress = args.cost_limit = CostLimit(args.max_cost, stop, loop, then=on_progress)
    try:
        return await arun_batch(
            source,
            args.output,
            settings=args.settings,
            concurrency=args.concurrency,
            max_rps=args.max_rps,
            resume=args.resume,
            overwrite=args.overwrite,
            stop=stop,
            grace_s=args.grace_s,
            on_progress=on_progress,
            engine=_engine(args),
        )
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
