"""The columns rows travel in between the stages of a Ray batch job, and how values are encoded.

A block read from the input holds, per line, its ``request_id`` and line number and either the
request to route (one provider's, or a line asking several: ``fanout`` says which) or, for a
line that is no request, its finished error row. The actors commit the finished rows themselves
(:mod:`.commits`); a block leaving them holds one row, the counts of what it committed
(:data:`STATS_SCHEMA`). Rows travel as the bytes of their output line, so the file a
shard ends in holds exactly what the local engine would have written (an Arrow string could not
hold the lone surrogates a provider's JSON escape may put into an answer).
"""

from __future__ import annotations

import pickle

import pyarrow as pa

from router.batch import fanout_lines
from router.batch.fanout_lines import BatchRequest
from router.batch.stats import BatchStats, RowFacts

__all__ = [
    "FACTS",
    "FANOUT",
    "INPUT_SCHEMA",
    "LINE",
    "REQUEST",
    "REQUEST_ID",
    "ROW",
    "STATS",
    "STATS_SCHEMA",
    "decode_facts",
    "decode_id",
    "decode_request",
    "encode_facts",
    "encode_id",
    "encode_request",
    "encode_stats",
    "read_stats",
    "stats_table",
]

REQUEST_ID = "request_id"
LINE = "line"
REQUEST = "request"
ROW = "row"
FACTS = "facts"
FANOUT = "fanout"
STATS = "stats"

INPUT_SCHEMA = pa.schema(
    [
        pa.field(REQUEST_ID, pa.binary(), nullable=False),  # see encode_id
        pa.field(LINE, pa.int64(), nullable=False),
        pa.field(REQUEST, pa.binary()),  # the request to route, or null for a finished row
        pa.field(FANOUT, pa.bool_()),  # whether the request asks several providers
        pa.field(ROW, pa.binary()),  # the finished row of a line that is no request
        pa.field(FACTS, pa.binary()),
    ]
)

STATS_SCHEMA = pa.schema([pa.field(STATS, pa.binary(), nullable=False)])


def encode_id(request_id: str) -> bytes:
    """A request_id as the bytes its column holds (the checkpoint keys rows by them).

    An id may hold a lone surrogate (``"\\ud800"`` in the input), which no Arrow string can:
    such a line must still get its one row, so ids travel as bytes, losslessly.
    """
    return request_id.encode("utf-8", "surrogatepass")


def decode_id(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def encode_request(request: BatchRequest) -> tuple[bytes, bool]:
    """A request as its column holds it, and whether it is a fan-out (its own column)."""
    # The reader refuses (as an error row) any request that cannot be serialised this way.
    text, fanout = fanout_lines.encode_request(request)
    return text.encode("utf-8"), fanout


def decode_request(data: bytes, fanout: bool) -> BatchRequest:
    return fanout_lines.decode_request(data.decode("utf-8"), fanout)


def encode_facts(facts: RowFacts) -> bytes:
    # Pickled as worker processes send them: plain data, between processes of this one job.
    return pickle.dumps(facts)


def decode_facts(data: bytes) -> RowFacts:
    facts: RowFacts = pickle.loads(data)
    return facts


def encode_stats(stats: BatchStats) -> bytes:
    return pickle.dumps(stats)


def stats_table(stats: BatchStats) -> pa.Table:
    """The one-row block a routing actor returns: the counts of the rows it committed."""
    return pa.table({STATS: [encode_stats(stats)]}, schema=STATS_SCHEMA)


def read_stats(table: pa.Table) -> list[BatchStats]:
    """The counts in a block of :data:`STATS_SCHEMA` rows."""
    return [pickle.loads(data) for data in table[STATS].to_pylist()]
