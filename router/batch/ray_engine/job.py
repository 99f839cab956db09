"""Run a batch job on Ray Data: read, route and commit on an actor pool, merge.

The driver reads no input: one Ray task reads it (leaving out what earlier runs committed),
:class:`.route_rows.RouteRows` actors route each block and commit its rows as they finish
(:mod:`.commits`), and what comes back to the driver is a small table of counts per block,
folded as it arrives. A run killed at any point and run again with ``resume`` routes only what
has no committed row yet, and loses at most the rows finished in the last ``commit_s`` seconds.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

from router.batch.ray_engine.blocks import read_stats
from router.batch.ray_engine.cluster import (
    ACTOR_CPUS,
    TASK_CPUS,
    actor_range,
    cluster_cpus,
    connect,
    disconnect,
)
from router.batch.ray_engine.commits import recover
from router.batch.ray_engine.coordination import JobProgress, SharedRateLimits
from router.batch.ray_engine.layout import (
    Layout,
    absolute,
    make_places,
    merge_shards,
    plan_layout,
    prepare,
)
from router.batch.ray_engine.route_rows import RouteRows
from router.batch.ray_engine.source import RequestLines
from router.batch.stats import BatchStats, BatchSummary
from router.logging import get_logger
from router.settings import RouterSettings

__all__ = ["DEFAULT_COMMIT_S", "run_job"]

log = get_logger(__name__)

DEFAULT_COMMIT_S = 5.0
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
    commit_s: float = DEFAULT_COMMIT_S,
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
    make_places(layout)
    recover(layout)
    started_cluster = connect(address)
    started = time.perf_counter()
    try:
        low, high = actor_range(actors, cluster_cpus(), concurrency=concurrency)
        progress = _on_this_node(JobProgress).remote()
        rate_limits: Any = None
        if max_rps:
            rate_limits = _on_this_node(SharedRateLimits).remote(max_rps)
        per_actor = max(1, math.ceil(concurrency / low))
        dataset = _dataset(
            source,
            layout,
            settings=settings,
            progress=progress,
            rows_per_block=max(_MIN_ROWS_PER_BLOCK, per_actor),
            concurrency=concurrency,
            actors=(low, high),
            commit_s=commit_s,
            rate_limits=rate_limits,
        )
        live = BatchStats()
        watch = _Watch(
            progress,
            live,
            on_progress=on_progress,
            should_stop=should_stop,
            should_abandon=should_abandon,
            grace_s=grace_s,
        )
        interrupted = watch.run(lambda: watch.fold(dataset))
        watch.look_at_progress()
        stats = watch.stats()
        if not interrupted:
            if rate_limits is not None:
                granted = ray.get(rate_limits.granted.remote())
                log.info("batch_rate_limited", max_rps=max_rps, granted=granted)
            if layout.merged:
                merge_shards(layout)
        summary = stats.summary(elapsed_s=time.perf_counter() - started, interrupted=interrupted)
    finally:
        if started_cluster:
            disconnect()
    log.info("batch_finished", done=summary.done, skipped=summary.skipped, **summary.outcomes)
    return summary


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
    progress: Any,
    rows_per_block: int,
    concurrency: int,
    actors: tuple[int, int],
    commit_s: float,
    rate_limits: Any,
) -> Any:
    """The job's dataset: the input read (committed lines left out) and routed, committed."""
    import ray
    from ray.data import ActorPoolStrategy

    # Blocks of what an actor routes at once: small enough that the actors share the input and
    # a lost actor costs little work, large enough that rows, not Ray tasks, take the time. The
    # read task cuts them to size itself (Ray Data splitting one read's output, its
    # override_num_blocks, cut a resumed run's few rows into one-row blocks), and a streaming
    # repartition by rows keeps them so (a read task's output is merged up to a block's bytes).
    dataset = (
        ray.data.read_datasource(
            RequestLines(
                source,
                layout,
                rows_per_block=rows_per_block,
                progress=progress,
                secrets=settings.secret_values(),
            ),
            num_cpus=TASK_CPUS,
            override_num_blocks=1,
        )
        .repartition(target_num_rows_per_block=rows_per_block)
        .map_batches(
            RouteRows,
            fn_constructor_args=(settings, layout),
            fn_constructor_kwargs={
                "concurrency": concurrency,
                "commit_s": commit_s,
                "shares": progress,
                "rate_limits": rate_limits,
            },
            batch_size=rows_per_block,
            batch_format="pyarrow",
            zero_copy_batch=True,
            compute=ActorPoolStrategy(
                min_size=actors[0],
                max_size=actors[1],
                max_concurrent_calls_per_actor=_BLOCKS_PER_ACTOR,
            ),
            num_cpus=ACTOR_CPUS,
        )
    )
    context = dataset.context
    # Actors that cannot be placed end the job with that error instead of a wait without end.
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
        self._lock = threading.Lock()

    def fold(self, dataset: Any) -> None:
        """Execute the job, adding each block's counts to the live ones as they arrive."""
        for block in dataset.iter_batches(batch_size=None, batch_format="pyarrow"):
            for counted in read_stats(block):
                with self._lock:
                    self._live.merge(counted)

    def stats(self) -> BatchStats:
        """A copy of the counts so far."""
        with self._lock:
            copy = BatchStats(total=self._live.total, skipped=self._live.skipped)
            copy.merge(self._live)
        return copy

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
            self.look_at_progress()
            if self._on_progress is not None:
                self._on_progress(self.stats())
            if deadline is None and self._should_stop():
                log.warning("batch_stopping", grace_s=self._grace_s)
                deadline = time.monotonic() + self._grace_s
            if self._should_abandon() or (deadline is not None and time.monotonic() > deadline):
                return True
        if failure:
            raise failure[0]
        return False  # ended within the grace time: every row is written

    def look_at_progress(self) -> None:
        """Take the lines read and skipped so far; a lost progress actor costs the display."""
        import ray

        try:
            lines, skipped = ray.get(self._progress.snapshot.remote())
        except ray.exceptions.RayError as exc:
            log.warning("batch_progress_unavailable", error=type(exc).__name__)
            return
        with self._lock:
            self._live.total, self._live.skipped = lines, skipped
