"""One question to several providers at once: what ``route_many`` / ``aroute_many`` do.

``Router.route_many`` / ``Router.aroute_many`` (and the module-level functions of
:mod:`router.router`, which use the process-wide router when none is given) hand themselves
to :func:`fan_out` / :func:`afan_out`; this module never imports the router, only asks it to
route (:class:`Routes`), so the two do not import each other. The twins share every decision
(:func:`plan_requests`, the span, :func:`_finished`); they differ only in how the calls run.

The request is sent to each vendor concurrently through one router (its clients, retries and
validators), with that vendor's model: ``models[vendor]``, else the request's own model when it
names that vendor, else ``GROUNDING_ROUTER_DEFAULT_MODEL_<VENDOR>``, else the registry's default.
Each provider's ``LLMResponse`` or ``RouterError`` is kept; one provider's failure never hides
another's answer. REQUIRED grounding applies per provider. ``require`` says what the whole call
needs: ``"any"`` (the default) fails only when every provider failed, ``"all"`` when any did;
the ``FanoutError`` it raises lists each provider's reason and keeps the partial result.
The cross-provider aggregate of the answers is :func:`router.aggregate.aggregate`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from adapters.registry import provider
from router.aggregate import Aggregate, aggregate, spec_view
from router.errors import FanoutError, RequestValidationError, RouterError
from router.schema import SCHEMA_VERSION
from router.settings import RouterSettings
from router.tracing import NoSpan, OperationSpan, Tracing
from router.types import LLMRequest, LLMResponse

__all__ = ["FanoutResult", "Require", "Routes", "afan_out", "fan_out", "plan_requests"]

Require = Literal["any", "all"]
RequestInput = LLMRequest | Mapping[str, Any]  # as router.router.RequestInput


class Routes(Protocol):
    """What a fan-out needs of a router (``router.router.Router`` is one)."""

    @property
    def settings(self) -> RouterSettings: ...

    @property
    def tracing(self) -> Tracing: ...

    def route(self, request: LLMRequest) -> LLMResponse: ...

    async def aroute(self, request: LLMRequest) -> LLMResponse: ...


# The span over a fan-out; each provider's call is a child span of it (router.tracing).
FANOUT_SPAN = "grounding_router.route_many"


@dataclass(frozen=True, slots=True)
class FanoutResult:
    """Each provider's outcome, in the order the vendors were given, and their aggregate."""

    outcomes: dict[str, LLMResponse | RouterError]
    aggregate: Aggregate

    @property
    def responses(self) -> dict[str, LLMResponse]:
        """The providers that answered."""
        return {v: o for v, o in self.outcomes.items() if isinstance(o, LLMResponse)}

    @property
    def errors(self) -> dict[str, RouterError]:
        """The providers that failed, with their errors."""
        return {v: o for v, o in self.outcomes.items() if isinstance(o, RouterError)}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able view: its ``schema_version`` (:mod:`router.schema`), per provider
        ``{ok, response | error}``, and the aggregate."""
        providers: dict[str, Any] = {}
        for vendor, outcome in self.outcomes.items():
            if isinstance(outcome, LLMResponse):
                providers[vendor] = {"ok": True, "response": outcome.model_dump(mode="json")}
            else:
                providers[vendor] = {"ok": False, "error": outcome.to_dict()}
        return {
            "schema_version": SCHEMA_VERSION,
            "providers": providers,
            "aggregate": self.aggregate.to_dict(),
        }

    def to_spec(self) -> dict[str, Any]:
        """The multi-provider seed's shape: ``citations`` and ``providers`` in request order.

        ``citations[]`` holds ``{canonical_url, domains, providers_cited, title}`` per cited
        source; ``providers[i]`` is ``{provider, citations}`` with that provider's own list
        (see :func:`router.aggregate.spec_view`). ``to_dict`` stays the richer default.
        """
        return spec_view(self.outcomes)


def fan_out(
    router: Routes,
    request: RequestInput,
    vendors: Sequence[str],
    *,
    models: Mapping[str, str] | None = None,
    require: Require = "any",
) -> FanoutResult:
    """Ask every vendor of ``vendors`` the same question through ``router``, at once (threads)."""
    requests = plan_requests(request, vendors, models=models, require=require, router=router)
    with _fanout_span(router, requests, require) as span:
        with ThreadPoolExecutor(max_workers=len(requests), thread_name_prefix="route_many") as pool:
            # Each thread runs in a copy of this context, so the calls' spans are children.
            futures = {
                vendor: pool.submit(contextvars.copy_context().run, _outcome, router, each)
                for vendor, each in requests.items()
            }
            outcomes = {vendor: future.result() for vendor, future in futures.items()}
        span.set(_outcome_attributes(outcomes))
        return _finished(outcomes, require)


async def afan_out(
    router: Routes,
    request: RequestInput,
    vendors: Sequence[str],
    *,
    models: Mapping[str, str] | None = None,
    require: Require = "any",
) -> FanoutResult:
    """The async twin of :func:`fan_out`: one task per vendor on the running loop."""
    requests = plan_requests(request, vendors, models=models, require=require, router=router)
    with _fanout_span(router, requests, require) as span:
        results = await asyncio.gather(*(_aoutcome(router, each) for each in requests.values()))
        outcomes = dict(zip(requests, results, strict=True))
        span.set(_outcome_attributes(outcomes))
        return _finished(outcomes, require)


def _fanout_span(
    router: Routes, requests: Mapping[str, LLMRequest], require: str
) -> OperationSpan | NoSpan:
    return router.tracing.operation(FANOUT_SPAN, _fanout_attributes(requests, require))


def plan_requests(
    request: RequestInput,
    vendors: Sequence[str],
    *,
    models: Mapping[str, str] | None = None,
    require: str = "any",
    router: Routes | None = None,
) -> dict[str, LLMRequest]:
    """One validated request per vendor, each with that vendor's model (see the module).

    Without ``router`` no settings are read: a model not given comes from the registry. Bad
    vendors, models or require (of any type, as a batch line may hold them) are a
    ``RequestValidationError`` naming the field.
    """
    chosen = _vendor_names(vendors)
    if require not in ("any", "all"):
        raise RequestValidationError(f"require: 'any' or 'all', not {require!r}", field="require")
    fields = _request_fields(request)
    given = _model_names(models, chosen)
    planned: dict[str, LLMRequest] = {}
    for vendor in chosen:
        row = provider(vendor)  # an unknown vendor is a request error naming the known ones
        own_model = fields.get("model") if _same_vendor(fields.get("vendor"), vendor) else None
        configured = router.settings.default_model(vendor) if router is not None else None
        model = given.get(vendor) or own_model or configured
        planned[vendor] = LLMRequest.model_validate(
            {**fields, "vendor": vendor, "model": model or row.default_model}
        )
    return planned


def _vendor_names(vendors: object) -> list[str]:
    """The vendors as given, lowercased as a request's vendor is; a list of distinct names."""
    if isinstance(vendors, str) or not isinstance(vendors, Sequence) or not vendors:
        raise RequestValidationError(
            "vendors: give a list of one or more vendors, such as ['openai', 'vertex']",
            field="vendors",
        )
    odd = [name for name in vendors if not isinstance(name, str) or not name.strip()]
    if odd:
        raise RequestValidationError(
            f"vendors: each vendor is a name, not {odd[0]!r}", field="vendors"
        )
    chosen = [name.strip().lower() for name in vendors]
    if len(set(chosen)) != len(chosen):
        raise RequestValidationError(f"vendors: each vendor once, not {chosen}", field="vendors")
    return chosen


def _model_names(models: object, vendors: Sequence[str]) -> dict[str, str]:
    """``models`` keyed by lowercased vendor; each key among ``vendors``, each value a name."""
    if models is None:
        return {}
    if not isinstance(models, Mapping):
        raise RequestValidationError(
            f"models: give an object of vendor to model, not {type(models).__name__}",
            field="models",
        )
    given: dict[str, str] = {}
    for vendor, model in models.items():
        if not isinstance(vendor, str) or not isinstance(model, str) or not model.strip():
            raise RequestValidationError(
                f"models: each entry is a vendor and a model name, not {vendor!r}: {model!r}",
                field="models",
            )
        given[vendor.strip().lower()] = model.strip()
    unknown = sorted(set(given) - set(vendors))
    if unknown:
        raise RequestValidationError(
            f"models: {unknown} are not among the vendors {list(vendors)}", field="models"
        )
    return given


def _same_vendor(named: object, vendor: str) -> bool:
    return isinstance(named, str) and named.strip().lower() == vendor


def _request_fields(request: RequestInput) -> dict[str, Any]:
    """The request's fields; vendor and model may be left out, route_many fills them in."""
    if isinstance(request, LLMRequest):
        return request.model_dump(exclude_defaults=True)
    if not isinstance(request, Mapping):
        raise RequestValidationError(
            f"request: expected an object with messages, got {type(request).__name__}",
            field="request",
        )
    return dict(request)


def _outcome(router: Routes, request: LLMRequest) -> LLMResponse | RouterError:
    try:
        return router.route(request)
    except RouterError as error:
        return error


async def _aoutcome(router: Routes, request: LLMRequest) -> LLMResponse | RouterError:
    try:
        return await router.aroute(request)
    except RouterError as error:
        return error


def _fanout_attributes(requests: Mapping[str, LLMRequest], require: str) -> dict[str, Any]:
    return {"grounding_router.vendors": list(requests), "grounding_router.require": require}


def _outcome_attributes(outcomes: Mapping[str, LLMResponse | RouterError]) -> dict[str, Any]:
    answered = [vendor for vendor, o in outcomes.items() if isinstance(o, LLMResponse)]
    return {
        "grounding_router.answered": answered,
        "grounding_router.failed": [vendor for vendor in outcomes if vendor not in answered],
    }


def _finished(outcomes: dict[str, LLMResponse | RouterError], require: Require) -> FanoutResult:
    result = FanoutResult(outcomes=outcomes, aggregate=aggregate(outcomes))
    failed = result.errors
    if failed and (require == "all" or len(failed) == len(outcomes)):
        reasons = "; ".join(
            f"{vendor}: {type(error).__name__} ({error.reason})" for vendor, error in failed.items()
        )
        needed = "every provider" if require == "all" else "at least one provider"
        raise FanoutError(
            f"route_many needed {needed} to answer; {len(failed)} of {len(outcomes)} failed: "
            f"{reasons}",
            errors=failed,
            result=result,
        )
    return result
