"""Run a batch job on Ray Data: read, route on an actor pool, write shards, merge.

The driver reads nothing itself but the line count: the input is read by a Ray task, routed by
:class:`.route_rows.RouteRows` actors and written by Ray write tasks, with Ray Data's row-level
checkpoint keyed by ``request_id`` (see :mod:`.layout` for where it lives), so a run killed at
any point and run again with ``resume`` routes only what has no committed row yet.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from router.batch.ray_engine.blocks import REQUEST_ID
from router.batch.ray_engine.cluster import (
    ACTOR_CPUS,
    TASK_CPUS,
    actor_range,
    cluster_cpus,
    connect,
    disconnect,
)
from router.batch.ray_engine.coordination import JobProgress, SharedRateLimits
from router.batch.ray_engine.layout import (
    Layout,
    absolute,
    checkpointed_ids,
    count_input_lines,
    merge_shards,
    plan_layout,
    prepare,
)
from router.batch.ray_engine.route_rows import RouteRows
from router.batch.ray_engine.sink import RowShards
from router.batch.ray_engine.source import RequestLines
from router.batch.stats import BatchStats, BatchSummary
from router.logging import get_logger
from router.settings import RouterSettings

__all__ = ["run_job"]

log = get_logger(__name__)

_POLL_S = 0.25
# Blocks an actor works on at once: a block held up by one slow reply (a Retry-After) leaves the
# actor's other blocks running.
_BLOCKS_PER_ACTOR = 4
_MIN_ROWS_PER_BLOCK = 16
_ACTOR_PLACEMENT_S = 600  # an autoscaling cluster may take minutes to add a node

ProgressCallback = Callable[[BatchStats], None]


def run_job(
    source: str,
    output: str,
    *,
    settings: RouterSettings,
    concurrency: int,
    max_rps: float | None,
    resume: bool,
    overwrite: bool,
    should_stop: Callable[[], bool],
    should_abandon: Callable[[], bool],
    grace_s: float,
    on_progress: ProgressCallback | None,
    address: str | None,
    actors: tuple[int, int] | None,
    checkpoint: str | None,
) -> BatchSummary:
    """Run the job to its end; see ``arun_batch`` for the options.

    When ``should_stop`` turns true the job gets ``grace_s`` more seconds to end; when it has
    not by then, or ``should_abandon`` turns true, it is left: rows committed so far stay, and a
    resumed run does the rest. A connection this call made is closed, which ends a job left
    behind; a process connected before keeps its connection, and the job runs on until it ends.
    """
    import ray

    source = absolute(source)
    layout = plan_layout(output, checkpoint)
    prepare(layout, source, resume=resume, overwrite=overwrite)
    started_cluster = connect(address)
    started = time.perf_counter()
    try:
        low, high = actor_range(actors, cluster_cpus())
        live = BatchStats(total=count_input_lines(source), skipped=checkpointed_ids(layout))
        progress = _on_this_node(JobProgress).remote()
        rate_limits: Any = None
        if max_rps:
            rate_limits = _on_this_node(SharedRateLimits).remote(max_rps)
        dataset = _dataset(
            source,
            layout,
            settings=settings,
            lines=live.total,
            per_actor=max(1, math.ceil(concurrency / high)),
            actors=(low, high),
            rate_limits=rate_limits,
        )
        sink = RowShards(layout.shards, progress=progress)
        watch = _Watch(
            progress,
            live,
            on_progress=on_progress,
            should_stop=should_stop,
            should_abandon=should_abandon,
            grace_s=grace_s,
        )
        interrupted = watch.run(
            # As many writers as routing actors at most: a write takes a fraction of a routing
            # task's time, and each Ray worker process started for more costs an interpreter.
            lambda: dataset.write_datasink(sink, ray_remote_args=_TASK, concurrency=high)
        )
        stats = live
        if not interrupted:
            if rate_limits is not None:
                granted = ray.get(rate_limits.granted.remote())
                log.info("batch_rate_limited", max_rps=max_rps, granted=granted)
            stats = BatchStats(total=live.total, skipped=live.skipped)
            stats.merge(sink.stats)
            if layout.merged:
                merge_shards(layout)
        summary = stats.summary(elapsed_s=time.perf_counter() - started, interrupted=interrupted)
    finally:
        if started_cluster:
            disconnect()
    log.info("batch_finished", done=summary.done, skipped=summary.skipped, **summary.outcomes)
    return summary


_TASK = {"num_cpus": TASK_CPUS}


def _on_this_node(cls: type) -> Any:
    """``cls`` as an actor on the driver's node: the job's own state lives and dies with it."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    return ray.remote(cls).options(num_cpus=0, scheduling_strategy=here)


def _dataset(
    source: str,
    layout: Layout,
    *,
    settings: RouterSettings,
    lines: int,
    per_actor: int,
    actors: tuple[int, int],
    rate_limits: Any,
) -> Any:
    """The job's dataset: the input read, checkpoint-filtered and routed (not yet written)."""
    import ray
    from ray.data import ActorPoolStrategy
    from ray.data.checkpoint import CheckpointConfig

    # Blocks of what an actor runs at once: small enough that the actors share the input and a
    # kill costs little work, large enough that rows, not Ray tasks, take the time. A block is
    # routed by one task and written as one shard with one checkpoint file.
    blocks = max(1, math.ceil(lines / max(_MIN_ROWS_PER_BLOCK, per_actor)))
    dataset = ray.data.read_datasource(
        RequestLines(source, secrets=settings.secret_values()),
        num_cpus=TASK_CPUS,
        override_num_blocks=blocks,
    ).map_batches(
        RouteRows,
        fn_constructor_args=(settings,),
        fn_constructor_kwargs={"concurrency": per_actor, "rate_limits": rate_limits},
        batch_size=None,
        batch_format="pyarrow",
        zero_copy_batch=True,
        compute=ActorPoolStrategy(
            min_size=actors[0],
            max_size=actors[1],
            max_concurrent_calls_per_actor=_BLOCKS_PER_ACTOR,
        ),
        num_cpus=ACTOR_CPUS,
    )
    context = dataset.context
    context.checkpoint_config = CheckpointConfig(
        id_column=REQUEST_ID,
        checkpoint_path=layout.checkpoint,
        delete_checkpoint_on_success=False,  # a run after a finished one must skip every id
    )
    # One filter actor: it is the whole CPU the sizing rule reserves for it (see .cluster).
    context.checkpoint_config.checkpoint_actor_pool_max_size = 1
    # Each stage's actors are placed before the next stage asks for its own: the filter's whole
    # CPU is taken before the routing actors spread over the nodes, and actors that cannot be
    # placed end the job with that error instead of a wait without end.
    context.wait_for_min_actors_s = _ACTOR_PLACEMENT_S
    context.enable_progress_bars = False
    return dataset


class _Watch:
    """Runs the job on a thread of its own and watches it: progress, stop, abandon."""

    def __init__(
        self,
        progress: Any,
        live: BatchStats,
        *,
        on_progress: ProgressCallback | None,
        should_stop: Callable[[], bool],
        should_abandon: Callable[[], bool],
        grace_s: float,
    ) -> None:
        self._progress = progress
        self._live = live
        self._on_progress = on_progress
        self._should_stop = should_stop
        self._should_abandon = should_abandon
        self._grace_s = grace_s

    def run(self, execute: Callable[[], None]) -> bool:
        """Execute the job; True when it was left before its end."""
        failure: list[BaseException] = []

        def target() -> None:
            try:
                execute()
            except BaseException as exc:  # raised again on the watching thread
                failure.append(exc)

        runner = threading.Thread(target=target, name="grounding-router-ray-job", daemon=True)
        runner.start()
        deadline: float | None = None
        while runner.is_alive():
            runner.join(_POLL_S)
            self._look_at_progress()
            if deadline is None and self._should_stop():
                log.warning("batch_stopping", grace_s=self._grace_s)
                deadline = time.monotonic() + self._grace_s
            if self._should_abandon() or (deadline is not None and time.monotonic() > deadline):
                return True
        if failure:
            raise failure[0]
        return False  # ended within the grace time: every row is written

    def _look_at_progress(self) -> None:
        """Show the counts so far; a lost progress actor costs the display, never the job."""
        import ray

        try:
            self._live.outcomes = ray.get(self._progress.snapshot.remote())
        except ray.exceptions.RayError as exc:
            log.warning("batch_progress_unavailable", error=type(exc).__name__)
        if self._on_progress is not None:
            self._on_progress(self._live)
