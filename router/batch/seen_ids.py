"""The request ids a batch has met, kept on disk so that memory stays flat however long the file.

A run must remember every id it has met: a repeated id is renamed (:mod:`router.batch.input`),
an id already in the output is skipped on resume. Held in a Python set or dict, each id costs
100 to 150 bytes, which grew a run of 100,000 lines by about 15 MB. :class:`SeenIds` keeps them,
exactly, in a private temporary SQLite database (the standard library's): SQLite keeps at most
its page cache (about 2 MB) in memory and the rest in a file of the temporary directory that it
deletes when the database is closed. Looking an id up or adding one costs a few microseconds.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from types import TracebackType

__all__ = ["SeenIds"]

_NOT_SET = -1  # the line of an id recorded without one (a row of the output, an id of the file)


class SeenIds:
    """Request ids, each with the line it was first met on; a closed index holds nothing."""

    def __init__(self) -> None:
        # "" opens a private temporary database: in memory until the page cache fills, then in
        # a file that is deleted on close. Used from whichever thread iterates the input.
        self._db = sqlite3.connect("", check_same_thread=False, isolation_level=None)
        # Nothing of it outlives the run, so no journal or syncing: one transaction, never
        # committed, lets SQLite write pages out as the cache fills without a write per id.
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute(
            "CREATE TABLE ids (id BLOB PRIMARY KEY, line INTEGER NOT NULL) WITHOUT ROWID"
        )
        self._db.execute("BEGIN")

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
        """Drop the database and its file."""
        self._db.close()

    def __enter__(self) -> SeenIds:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _key(request_id: str) -> bytes:
    """The id as bytes, one for one: an id from JSON may hold a lone surrogate, which SQLite's
    text (UTF-8) cannot."""
    return request_id.encode("utf-8", "surrogatepass")
