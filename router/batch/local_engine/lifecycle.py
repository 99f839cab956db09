"""The life of a batch worker process: set up like its parent, and ended with it.

A spawned worker starts as a bare interpreter: nothing of the parent's set-up crosses on its own.
:func:`enter_worker` is the first thing a worker runs, and does four things:

- it ends the worker the moment the parent is gone, whatever the worker is doing then (starting
  up, waiting for work, inside a provider call, flushing its last rows): nobody could take its
  rows any more, and a resumed run redoes what it had in flight;
- it logs the way the parent logs (:func:`router.logging.cli_logging_options`: renderer, level,
  redaction, the terminal sanitizer), on stderr, each event tagged with ``batch_worker``; a
  parent that never called ``configure_logging`` gets workers logging with its defaults, on
  stderr, rather than structlog's (every level, on stdout, unredacted);
- it points its stdout at its stderr: the parent's stdout carries the summary or JSON a caller
  reads, and nothing a worker prints belongs there;
- it ignores SIGINT (a Ctrl-C reaches the whole process group; the parent coordinates the stop).

How the parent's end is noticed: multiprocessing hands each spawned child the read end of a pipe
whose only write end the parent holds (``multiprocessing.parent_process().sentinel``). When the
parent dies, however it dies, the kernel closes that end and the pipe reads as ended, for good:
a worker that starts watching only after its parent died (SIGKILL during the worker's imports)
sees it at once. Comparing ``os.getppid()`` with the pid the parent had is the fallback; it must
be the pid passed down from the parent, since a worker that asks for its parent's pid after the
parent died is told 1 (or a subreaper's) and would watch that forever. ``PR_SET_PDEATHSIG`` is
not used: it is Linux only, it fires when the parent *thread* that started the worker ends (the
pool starts workers from a thread of the event loop's executor), and it too misses a parent that
died before the worker could ask for it.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import structlog

from router.logging import cli_logging_options, configure_logging
from router.text.terminal import show_warning

__all__ = ["WorkerStart", "enter_worker"]

_PARENT_POLL_S = 0.2


@dataclass(frozen=True, slots=True)
class WorkerStart:
    """What a worker needs from its parent to begin: who the parent is, how it logs."""

    parent_pid: int = field(default_factory=os.getpid)
    logging: dict[str, Any] = field(default_factory=lambda: cli_logging_options() or {})


def enter_worker(start: WorkerStart, number: int) -> None:
    """Begin a worker process's life (see the module doc); call it before anything else."""
    _end_with_parent(start.parent_pid)
    os.dup2(2, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warnings.showwarning = show_warning
    configure_logging(**start.logging)
    structlog.contextvars.bind_contextvars(batch_worker=number)


def _end_with_parent(parent_pid: int) -> None:
    parent = multiprocessing.parent_process()
    sentinel = parent.sentinel if parent is not None else None
    watch = threading.Thread(
        target=_wait_for_parent,
        args=(sentinel, parent_pid),
        name="grounding-router-batch-parent-watch",
        daemon=True,
    )
    watch.start()


def _wait_for_parent(sentinel: int | None, parent_pid: int) -> None:
    """Return never: exit the process at once when the parent is gone."""
    if sentinel is not None:
        multiprocessing.connection.wait([sentinel])
    else:
        while os.getppid() == parent_pid:
            time.sleep(_PARENT_POLL_S)
    os._exit(1)
