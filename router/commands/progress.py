"""A batch progress bar on stderr: done / total, ok, REQUIRED failures, errors, rate, ETA.

It draws only when stderr is a terminal; piped or redirected runs stay quiet.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, Self

from router.batch.stats import BatchStats

__all__ = ["BatchProgress"]


class BatchProgress:
    """Context manager wrapping a rich progress bar; call it with the stats after each row."""

    def __init__(self, *, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> Self:
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]batch"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("ok {task.fields[ok]}"),
            TextColumn("required-failed {task.fields[required_failed]}"),
            TextColumn("errors {task.fields[errors]}"),
            TextColumn("{task.fields[rate]}/s"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            redirect_stderr=True,
        )
        self._progress.__enter__()
        self._task = self._progress.add_task(
            "batch", total=None, ok=0, required_failed=0, errors=0, rate="-"
        )
        return self

    def __call__(self, stats: BatchStats) -> None:
        if self._progress is None:
            return
        ok = stats.outcomes["ok"]
        required_failed = stats.outcomes["required_failed"]
        task = self._progress.tasks[0]
        speed = task.speed
        self._progress.update(
            self._task,
            total=max(stats.total - stats.skipped, 0),
            completed=stats.done,
            ok=ok,
            required_failed=required_failed,
            errors=stats.done - ok - required_failed,
            rate=f"{speed:.1f}" if speed else "-",
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, traceback)
