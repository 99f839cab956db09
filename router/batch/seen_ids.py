"""The request ids a batch has met, kept on disk so that memory stays flat however long the file.

A run must remember every id it has met: a repeated id is renamed (:mod:`router.batch.input`),
an id already in the output is skipped on resume. Held in a Python set or dict, each id costs
100 to 150 bytes, which grew a run of 100,000 lines by about 15 MB. :class:`SeenIds` keeps them,
exactly, in a private SQLite database (the standard library's): SQLite keeps at most its page
cache (about 2 MB) in memory and the rest in its file. Looking an id up or adding one costs a
few microseconds.

The file is made here, in the first usable temporary directory (``tempfile``: ``TMPDIR``, then
the usual places, tried by writing to them). Left to SQLite, a private database spills into a
directory of SQLite's choosing only once its cache is full: in a container whose temporary
directories are read-only, a long run would have stopped there, hours in. Once SQLite has the
file open, its name is removed: the open file stays SQLite's until the connection closes, and
a run killed outright (``SIGKILL``, the out-of-memory killer) leaves nothing behind. SQLite
uses the name again only to open a rollback journal or a WAL beside it, which this one never has.
Where an open file cannot be removed (Windows), the name goes on close instead. When no
temporary directory is usable at all, the ids are kept in memory (growing with the input, as
they did before this store) and a warning says so at the start.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterable
from types import TracebackType

from router.logging import get_logger

__all__ = ["SeenIds"]

log = get_logger(__name__)

_NOT_SET = -1  # the line of an id recorded without one (a row of the output, an id of the file)


class SeenIds:
    """Request ids, each with the line it was first met on; a closed index holds nothing."""

    def __init__(self) -> None:
        self._path = _database_file()
        # Used from whichever thread iterates the input.
        self._db = sqlite3.connect(
            self._path or ":memory:", check_same_thread=False, isolation_level=None
        )
        # Nothing of it outlives the run, so no journal or syncing: one transaction, never
        # committed, lets SQLite write pages out as the cache fills without a write per id.
        # Its own scratch space stays in memory: the queries here need next to none.
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute("PRAGMA temp_store = MEMORY")
        self._db.execute(
            "CREATE TABLE ids (id BLOB PRIMARY KEY, line INTEGER NOT NULL) WITHOUT ROWID"
        )
        self._db.execute("BEGIN")
        if self._path is not None and _removed(self._path):
            self._path = None

    def first_line(self, request_id: str, line: int) -> int:
        """The line ``request_id`` was first met on: ``line`` when this is the first time."""
        added = self._db.execute(
            "INSERT INTO ids VALUES (?, ?) ON CONFLICT DO NOTHING", (_key(request_id), line)
        )
        if added.rowcount == 1:
            return line
        found = self._db.execute("SELECT line FROM ids WHERE id = ?", (_key(request_id),))
        (first,) = found.fetchone()
        return int(first)

    def add(self, request_id: str) -> None:
        """Remember ``request_id`` (without a line) unless it is known already."""
        self.update((request_id,))

    def update(self, request_ids: Iterable[str]) -> None:
        """Remember every id of ``request_ids``, read one at a time."""
        self._db.executemany(
            "INSERT INTO ids VALUES (?, ?) ON CONFLICT DO NOTHING",
            ((_key(request_id), _NOT_SET) for request_id in request_ids),
        )

    def __contains__(self, request_id: object) -> bool:
        if not isinstance(request_id, str):
            return False
        found = self._db.execute("SELECT 1 FROM ids WHERE id = ?", (_key(request_id),))
        return found.fetchone() is not None

    def close(self) -> None:
        """Drop the database and its file (its name, if still there)."""
        self._db.close()
        if self._path is not None:
            _removed(self._path)
            self._path = None

    def __enter__(self) -> SeenIds:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _database_file() -> str | None:
    """A new, empty file for the database in a usable temporary directory; None when there is
    none (the ids are then kept in memory)."""
    try:
        handle, path = tempfile.mkstemp(prefix="grounding-router-ids-", suffix=".sqlite")
    except OSError as exc:
        log.warning(
            "batch_ids_in_memory",
            reason=f"no usable temporary directory: {exc}",
            hint="set TMPDIR to a writable directory to keep memory flat on long inputs",
        )
        return None
    os.close(handle)
    return path


def _removed(path: str) -> bool:
    """Remove ``path``'s name; whether that could be done (not while the file is open, on
    Windows)."""
    try:
        os.remove(path)
    except OSError:
        return False
    return True


def _key(request_id: str) -> bytes:
    """The id as bytes, one for one: an id from JSON may hold a lone surrogate, which SQLite's
    text (UTF-8) cannot."""
    return request_id.encode("utf-8", "surrogatepass")
