"""What a batch file would do before it runs: each line checked as the run checks it, the
vendors and models it asks, and an estimate of what it would cost.

The estimate is list price (:mod:`router.pricing`): input tokens from the prompt's characters
(:data:`CHARS_PER_TOKEN` to a token, the usual English ratio), output tokens from the request's
``max_output_tokens`` or ``output_tokens`` per call when it sets none, and one search per
grounded call (a model may search more than once: the figure is a floor for the fees). The
search results a model reads are billed as input by some vendors and are not counted: an
estimate to decide with, not an invoice.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from router.batch.fanout_lines import FanoutRequest
from router.batch.input import BatchItem
from router.batch.openai_batch import looks_like_openai_batch
from router.capabilities import check_request
from router.errors import RequestValidationError
from router.pricing import Metered, PriceBook
from router.pricing.estimate import estimate_cost
from router.types import LLMRequest, Usage

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_OUTPUT_TOKENS",
    "BatchPlan",
    "call_estimate",
    "plan_batch",
    "planned_calls",
]

CHARS_PER_TOKEN = 4
DEFAULT_OUTPUT_TOKENS = 1000
_EXAMPLES = 5  # problems quoted by line; the rest are counted


@dataclass(frozen=True, slots=True)
class CallEstimate:
    """One provider call's estimated tokens and cost (``cost`` None when the model is unpriced)."""

    vendor: str
    model: str
    input_tokens: int
    output_tokens: int
    searches: int
    cost: float | None
    currency: str | None


@dataclass
class ModelPlan:
    """The calls a file makes to one vendor's model, and what they would cost."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    searches: int = 0
    cost: float = 0.0
    unpriced: int = 0
    currency: str | None = None


@dataclass
class BatchPlan:
    """A file's lines, valid and not, and its calls per (vendor, model) with their cost."""

    lines: int = 0
    valid: int = 0
    invalid: int = 0
    problems: list[str] = field(default_factory=list)
    models: dict[tuple[str, str], ModelPlan] = field(default_factory=dict)
    openai_batch_lines: int = 0

    def add_call(self, call: CallEstimate) -> None:
        """Count one call in its model's totals."""
        totals = self.models.setdefault((call.vendor, call.model), ModelPlan())
        totals.calls += 1
        totals.input_tokens += call.input_tokens
        totals.output_tokens += call.output_tokens
        totals.searches += call.searches
        if call.cost is None:
            totals.unpriced += 1
        else:
            totals.cost += call.cost
            totals.currency = call.currency

    def add_problem(self, item: BatchItem) -> None:
        """Count one invalid line, quoting the first few."""
        self.invalid += 1
        if len(self.problems) < _EXAMPLES and item.error is not None:
            self.problems.append(item.error.message)

    @property
    def totals(self) -> dict[str, float]:
        """The estimated cost per currency over every priced call."""
        totals: dict[str, float] = {}
        for plan in self.models.values():
            if plan.currency is not None:
                totals[plan.currency] = totals.get(plan.currency, 0.0) + plan.cost
        return {currency: round(total, 6) for currency, total in sorted(totals.items())}

    @property
    def unpriced(self) -> int:
        """Calls whose model has no price: their cost is unknown, not zero."""
        return sum(plan.unpriced for plan in self.models.values())

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON data."""
        return {
            "lines": self.lines,
            "valid": self.valid,
            "invalid": self.invalid,
            "problems": self.problems,
            "openai_batch_lines": self.openai_batch_lines,
            "calls": [
                {
                    "vendor": vendor,
                    "model": model,
                    "calls": plan.calls,
                    "input_tokens": plan.input_tokens,
                    "output_tokens": plan.output_tokens,
                    "searches": plan.searches,
                    "cost": round(plan.cost, 6) if plan.currency else None,
                    "currency": plan.currency,
                    "unpriced_calls": plan.unpriced,
                }
                for (vendor, model), plan in sorted(self.models.items())
            ],
            "estimated_cost": self.totals,
            "unpriced_calls": self.unpriced,
        }


def planned_calls(item: BatchItem) -> Sequence[LLMRequest]:
    """The provider calls a valid item makes: its request, or one per vendor of a fan-out."""
    from router.fanout import plan_requests

    request = item.request
    if isinstance(request, FanoutRequest):
        planned = plan_requests(
            request.fields, request.vendors, models=request.models, require=request.require
        )
        return tuple(planned.values())
    return () if request is None else (request,)


def call_estimate(
    request: LLMRequest, book: PriceBook, *, output_tokens: int = DEFAULT_OUTPUT_TOKENS
) -> CallEstimate:
    """The estimated tokens and list-price cost of one call of ``request``."""
    input_tokens = math.ceil(_prompt_chars(request) / CHARS_PER_TOKEN)
    output = request.max_output_tokens or output_tokens
    searches = 1 if request.grounded else 0
    usage = Usage(input_tokens=input_tokens, output_tokens=output)
    metered = Metered(usage=usage, tool_calls=searches, queries=("search",) * searches)
    prices = book.prices(request.vendor)
    priced_as = book.priced_as(request.vendor, [request.model])
    if prices is None or priced_as is None:
        cost, currency = None, None
    else:
        estimate = estimate_cost(prices, priced_as, metered)
        cost, currency = estimate.total, estimate.currency
    return CallEstimate(
        vendor=request.vendor,
        model=request.model,
        input_tokens=input_tokens,
        output_tokens=output,
        searches=searches,
        cost=cost,
        currency=currency,
    )


def plan_batch(
    items: Iterable[BatchItem],
    book: PriceBook,
    *,
    raw_lines: Iterable[Any] = (),
    output_tokens: int = DEFAULT_OUTPUT_TOKENS,
) -> BatchPlan:
    """The plan of a file's ``items`` (as :class:`router.batch.input.BatchInput` gives them).

    ``raw_lines`` are the lines' parsed JSON values (any that parse), looked at only to see
    whether the file is in OpenAI's Batch API format.
    """
    plan = BatchPlan()
    plan.openai_batch_lines = sum(1 for data in raw_lines if looks_like_openai_batch(data))
    for item in items:
        plan.lines += 1
        if item.error is not None or item.request is None:
            plan.add_problem(item)
            continue
        try:
            calls = planned_calls(item)
            for request in calls:
                check_request(request)  # what the router refuses before any call
        except RequestValidationError as exc:
            plan.add_problem(
                BatchItem(line=item.line, request_id=item.request_id, error=_on_line(item, exc))
            )
            continue
        plan.valid += 1
        for request in calls:
            plan.add_call(call_estimate(request, book, output_tokens=output_tokens))
    return plan


def _on_line(item: BatchItem, exc: RequestValidationError) -> RequestValidationError:
    return RequestValidationError(
        f"line {item.line}: {exc.message}", field=exc.field, request_id=item.request_id
    )


def _prompt_chars(request: LLMRequest) -> int:
    chars = 0
    for message in request.messages:
        if isinstance(message.content, str):
            chars += len(message.content)
        else:
            chars += sum(len(str(part.model_dump(exclude_none=True))) for part in message.content)
    return chars
