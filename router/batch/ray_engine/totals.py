"""Totals over a whole Ray job, every run that committed to it: what a resumed run's summary adds.

A Ray job's checkpoint keeps the facts of every committed row (:mod:`.commits`), so the totals
come from there, not from reading the rows back: rows by outcome and the estimated cost per
currency, as :class:`router.batch.file_totals.FileTotals` gives them for a local output file.
The cost is that of every answer the rows' calls got, a REQUIRED answer that grounding rejected
included, as a run's summary counts it. The checkpoint is read a batch at a time, and an id
committed twice (see :mod:`.retry`) is counted once, its ids kept on disk: memory stays flat.
"""

from __future__ import annotations

from router.batch.file_totals import FileTotals
from router.batch.ray_engine.blocks import FACTS, REQUEST_ID, decode_facts
from router.batch.ray_engine.commits import committed_batches
from router.batch.ray_engine.layout import plan_layout
from router.batch.seen_ids import SeenIds

__all__ = ["job_totals"]


def job_totals(output: str, checkpoint: str | None = None) -> FileTotals:
    """The totals of every row committed to the job writing ``output``."""
    layout = plan_layout(output, checkpoint)
    totals = FileTotals()
    with SeenIds() as seen:
        for batch in committed_batches(layout, columns=(REQUEST_ID, FACTS)):
            ids = batch.column(REQUEST_ID).to_pylist()
            for request_id, data in zip(ids, batch.column(FACTS).to_pylist(), strict=True):
                key = request_id.decode("utf-8", "surrogatepass")
                if key in seen:
                    continue
                seen.add(key)
                facts = decode_facts(data)
                totals.rows += 1
                totals.outcomes[facts.outcome] += 1
                for call in facts.calls:
                    spend = call.spend
                    if spend is not None and spend.currency and spend.total is not None:
                        currency = spend.currency
                        totals.cost[currency] = totals.cost.get(currency, 0.0) + spend.total
    return totals
