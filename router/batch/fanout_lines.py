"""Batch lines that ask several providers at once (``route_many``), and their rows.

A line holding ``"vendors": [...]`` (and optionally ``"models": {vendor: model}`` and
``"require": "any" | "all"``) beside a request's fields is one question for each of those
vendors. Vendor and model may be left out of the request; each vendor's model comes from
``models``, else the line's own model for its own vendor, else
``GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>``, else the registry's default (:mod:`router.fanout`).
The line is checked when it is read, for every vendor (:func:`fanout_request`): a bad vendors
list, models or require, or a request one of the vendors cannot take, is the line's error row.

Its row, one per line as always::

    {"schema_version", "request_id", "ok", "line",
     "request": {"vendors", "models", "require", "grounded", "grounding_mode", "user_location"},
     "fanout": {"providers": {vendor: {"ok": true, "response": {...}}
                                     | {"ok": false, "error": {...}}},
                "aggregate": {...}}}

``ok`` says whether ``require`` was met; when it was not, the row also holds ``"error"``: the
``FanoutError`` with each failed provider's error. ``request.models`` names the model each
vendor was asked for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from router.batch.output import (
    answer_row,
    error_row,
    request_summary,
    row_text,
    unexpected_error,
)
from router.batch.stats import RowFacts, fanout_facts, row_facts
from router.errors import FanoutError, RequestValidationError, RouterError
from router.fanout import FanoutResult, Require, plan_requests
from router.logging import get_logger
from router.schema import SCHEMA_VERSION
from router.types import LLMRequest

if TYPE_CHECKING:
    from router.router import UnifiedLLMAdapter

__all__ = [
    "FANOUT_KEYS",
    "BatchRequest",
    "FanoutRequest",
    "decode_request",
    "encode_request",
    "fanout_request",
    "fanout_row",
    "is_fanout_line",
    "request_row",
]

log = get_logger(__name__)

FANOUT_KEYS = ("vendors", "models", "require")
"""The keys that make a line a fan-out; the rest of the line is the request's fields."""


@dataclass(frozen=True, slots=True)
class FanoutRequest:
    """One batch line's question for several providers, as :func:`fanout_request` checked it.

    ``fields`` are the line's request fields (JSON values, its request_id included);
    ``vendors``, ``models`` and ``require`` are ``route_many``'s.
    """

    fields: dict[str, Any]
    vendors: tuple[str, ...]
    models: dict[str, str]
    require: Require

    @property
    def request_id(self) -> str:
        request_id = self.fields.get("request_id")
        return request_id if isinstance(request_id, str) else ""

    def to_json(self) -> str:
        """The line again, as worker processes receive it."""
        return json.dumps(
            {
                **self.fields,
                "vendors": list(self.vendors),
                "models": self.models,
                "require": self.require,
            }
        )


BatchRequest = LLMRequest | FanoutRequest
"""What a batch line asks: one request, or one question for several providers."""


def is_fanout_line(data: object) -> bool:
    """Whether a line's JSON asks several providers (it holds one of :data:`FANOUT_KEYS`)."""
    return isinstance(data, Mapping) and any(key in data for key in FANOUT_KEYS)


def fanout_request(data: Mapping[str, Any]) -> FanoutRequest:
    """The fan-out of a line's JSON, checked for every vendor; ``RequestValidationError`` if not.

    The request each vendor would get is validated (with the registry's default model where
    none is given: the run's settings may name another) and must serialise as JSON, since
    worker processes receive it so.
    """
    if "vendors" not in data:
        raise RequestValidationError(
            "vendors: a line with models or require asks several providers; list them in "
            "vendors, such as ['openai', 'vertex']",
            field="vendors",
        )
    fields = {key: value for key, value in data.items() if key not in FANOUT_KEYS}
    vendors, models, require = data["vendors"], data.get("models"), data.get("require", "any")
    planned = plan_requests(fields, vendors, models=models, require=require)
    for request in planned.values():
        try:
            request.model_dump_json()
        except Exception as exc:  # pydantic stops at 255 levels of nesting: refused here
            raise RequestValidationError(
                f"the request cannot be serialised as JSON ({type(exc).__name__})"
            ) from exc
    return FanoutRequest(
        fields=fields,
        vendors=tuple(planned),
        models=dict(models or {}),
        require=require,
    )


def encode_request(request: BatchRequest) -> tuple[str, bool]:
    """A request as JSON for a worker process, and whether it is a fan-out."""
    if isinstance(request, FanoutRequest):
        return request.to_json(), True
    return request.model_dump_json(), False


def decode_request(text: str, fanout: bool) -> BatchRequest:
    """The request :func:`encode_request` encoded."""
    if not fanout:
        return LLMRequest.model_validate_json(text)
    return fanout_request(json.loads(text))


async def request_row(
    router: UnifiedLLMAdapter, line: int, request: BatchRequest
) -> tuple[str, RowFacts]:
    """Route a line's request, one or several providers; its row and the facts it counts."""
    if isinstance(request, FanoutRequest):
        return await fanout_row(router, line, request)
    return await answer_row(router, line, request)


async def fanout_row(
    router: UnifiedLLMAdapter, line: int, request: FanoutRequest
) -> tuple[str, RowFacts]:
    """Ask every vendor of the line; its row as one line of JSON, and its facts (see the module).

    Whatever happens the line gets exactly one row.
    """
    summary: dict[str, Any] | None = None
    try:
        planned = plan_requests(
            request.fields,
            request.vendors,
            models=request.models,
            require=request.require,
            router=router,
        )
        summary = _summary(planned, request.require)
        try:
            result = await router.aroute_many(
                request.fields, request.vendors, models=request.models, require=request.require
            )
            unmet: FanoutError | None = None
        except FanoutError as error:
            result, unmet = cast(FanoutResult, error.result), error  # route_many keeps it
        row = _row(line, request.request_id, summary, result, unmet)
        return row_text(row), fanout_facts(result.outcomes, unmet)
    except RouterError as error:
        failure = error
    except Exception as exc:  # a bug must cost one row, not the run
        log.exception("batch_row_failed", request_id=request.request_id)
        failure = unexpected_error(exc)
    row = {**error_row(line, request.request_id, failure), "request": summary}
    return row_text(row), row_facts(error=failure)


def _summary(planned: Mapping[str, LLMRequest], require: str) -> dict[str, Any]:
    """What a report groups by: the request's settings, each vendor and its model."""
    first = request_summary(next(iter(planned.values())))
    shared = {key: value for key, value in first.items() if key not in ("vendor", "model")}
    return {
        "vendors": list(planned),
        "models": {vendor: each.model for vendor, each in planned.items()},
        "require": require,
        **shared,
    }


def _row(
    line: int,
    request_id: str,
    summary: dict[str, Any],
    result: FanoutResult,
    unmet: FanoutError | None,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "request_id": request_id,
        "ok": unmet is None,
        "line": line,
        "request": summary,
        "fanout": result.to_dict(),
    }
    if unmet is not None:
        row["error"] = unmet.to_dict()
    return row
