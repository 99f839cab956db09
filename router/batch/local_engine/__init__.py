"""The local engine of the batch runner: this machine, in this process or in worker processes.

``LocalEngine()`` routes in the calling process (:mod:`.in_process`); ``LocalEngine(workers=N)``
spreads the calls over N spawned processes (:mod:`.workers`, each begun by :mod:`.lifecycle`),
the calling process staying the only writer of the output. :mod:`.engine` holds the value and
what both ways share: the checks on the files, resume, the writer and the batch span.
"""

from __future__ import annotations

from router.batch.local_engine.engine import LocalEngine

__all__ = ["LocalEngine"]
