"""The opt-in response cache: a SQLite file of validated responses, with a TTL and a size bound.

Off by default; ``GROUNDING_ROUTER_CACHE=path`` (or ``Router(cache=...)``) turns it on. A
response is stored under the normalised request (:func:`cache_key`: vendor, model, messages,
grounding options and policy, the answer's format and sampling; not the request id, metadata,
timeout or fallbacks, which do not change the answer). A hit is the stored response with
``metadata["cache"] = "hit"``, its own request id and metadata, and a zero cost: nothing was
paid for it. Only validated responses are stored, so a hit passed the checks it would pass now.

Grounded answers of a provider whose registry row sets ``grounded_results_restricted`` (Vertex
and Gemini: Google's terms restrict storing Grounding with Google Search results) are not
stored unless ``GROUNDING_ROUTER_CACHE_GOOGLE_GROUNDED=true``.

Why the standard library's ``sqlite3`` and not ``diskcache``: diskcache (SQLite-backed, process-
and thread-safe, size-bounded) was the first choice, but its last release (5.6.3) dates from
August 2023, it pickles values by default (a cache file someone else can write would then run
code when read), and it wants a directory, where the setting names a file. What the cache needs
of it is small: one table in WAL mode (readers never block the writer; several processes and
threads share the file, each thread with its own connection), a busy timeout, expiry by a
stored deadline, and a bound kept by deleting the oldest rows. Values are JSON.

A cache never fails a call: a corrupt, locked or unwritable file is a warning
(``response_cache_unavailable``) and a miss. ``clock`` is injectable so tests expire entries
without waiting.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.registry import provider
from router.logging import get_logger
from router.types import Cost, LLMRequest, LLMResponse

__all__ = ["ResponseCache", "cache_key"]

log = get_logger(__name__)

_KEY_FIELDS = frozenset(
    {
        "vendor",
        "model",
        "messages",
        "grounded",
        "grounding_mode",
        "json_mode",
        "json_schema",
        "temperature",
        "max_output_tokens",
        "user_location",
        "allowed_domains",
        "blocked_domains",
        "search_context_size",
        "search_recency",
        "grounding_policy",
    }
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    stored_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    response TEXT NOT NULL
)
"""
_BUSY_TIMEOUT_S = 2.0


def cache_key(request: LLMRequest) -> str:
    """The request normalised to what decides the answer, hashed (SHA-256, hex)."""
    fields = request.model_dump(mode="json", include=set(_KEY_FIELDS))
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Validated responses in a SQLite file; safe to share between threads and processes."""

    def __init__(
        self,
        path: str | Path,
        *,
        ttl_s: float = 86_400.0,
        max_entries: int = 10_000,
        store_restricted_grounded: bool = False,
        clock: Callable[[], float] = time.time,
        busy_timeout_s: float = _BUSY_TIMEOUT_S,
    ) -> None:
        self.path = Path(path)
        self.ttl_s = ttl_s
        self.max_entries = max_entries
        self.store_restricted_grounded = store_restricted_grounded
        self._clock = clock
        self._busy_timeout_s = busy_timeout_s
        self._local = threading.local()

    def get(self, request: LLMRequest) -> LLMResponse | None:
        """The stored response of ``request`` as a hit, or None (a miss, or the cache failed)."""
        try:
            row = (
                self._connection()
                .execute(
                    "SELECT response FROM responses WHERE key = ? AND expires_at > ?",
                    (cache_key(request), self._clock()),
                )
                .fetchone()
            )
            if row is None:
                return None
            stored = LLMResponse.model_validate_json(row[0])
        except (sqlite3.Error, ValueError, OSError) as exc:
            self._unavailable("read", exc)
            return None
        return _as_hit(stored, request)

    def put(self, request: LLMRequest, response: LLMResponse) -> bool:
        """Store ``response`` (True), unless the provider's terms keep it out or storing failed."""
        if (
            response.grounded_effective
            and not self.store_restricted_grounded
            and provider(request.vendor).capabilities.grounded_results_restricted
        ):
            return False
        now = self._clock()
        try:
            connection = self._connection()
            with connection:
                connection.execute(
                    "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)",
                    (cache_key(request), now, now + self.ttl_s, response.model_dump_json()),
                )
                connection.execute("DELETE FROM responses WHERE expires_at <= ?", (now,))
                connection.execute(
                    "DELETE FROM responses WHERE key IN (SELECT key FROM responses "
                    "ORDER BY stored_at DESC LIMIT -1 OFFSET ?)",
                    (self.max_entries,),
                )
        except (sqlite3.Error, ValueError, OSError) as exc:
            self._unavailable("write", exc)
            return False
        return True

    def close(self) -> None:
        """Close this thread's connection (each thread opens its own)."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is not None:
            self._local.connection = None
            connection.close()

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=self._busy_timeout_s)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute(_SCHEMA)
            except sqlite3.Error:
                connection.close()
                raise
            self._local.connection = connection
        return connection

    def _unavailable(self, what: str, exc: BaseException) -> None:
        # A broken connection is dropped, so a file repaired or unlocked later is used again.
        self.close()
        log.warning(
            "response_cache_unavailable",
            operation=what,
            path=str(self.path),
            error=type(exc).__name__,
            detail=str(exc)[:200],
        )


def _as_hit(stored: LLMResponse, request: LLMRequest) -> LLMResponse:
    """The stored response as this request's answer: its id and tags, no cost, marked a hit."""
    currency = stored.usage.cost.currency if stored.usage.cost is not None else "USD"
    zero = Cost(tokens=0.0, searches=0.0, total=0.0, currency=currency, estimated=False)
    usage = stored.usage.model_copy(update={"cost": zero})
    metadata: dict[str, Any] = {**stored.metadata, "cache": "hit"}
    metadata.pop("request_metadata", None)
    if request.metadata:
        metadata["request_metadata"] = request.metadata
    return stored.model_copy(
        update={
            "request_id": request.request_id,
            "usage": usage,
            "latency_ms": 0.0,
            "attempts": 0,
            "metadata": metadata,
        }
    )
