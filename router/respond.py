"""From an adapter's result to the validated ``LLMResponse``: the one step route, stream and
extract all take.

:class:`Responder` holds what the step needs from a router (its settings, price book and
validators, and the redirect resolver, built on first use) and is a value: the router makes one,
and the stream call is handed it, so nothing calls back up into the router. In order:

1. redirect resolution (:meth:`Responder.resolve` / :meth:`Responder.aresolve`, the only I/O:
   when ``resolve_redirects`` is on, the citations' redirect links are resolved, for every
   provider alike, see :mod:`router.citations.resolution`);
2. limits: a JSON answer nested deeper than ``max_json_depth`` is refused, and a reply whose
   citations or forensic events a call limit cut says so (:mod:`router.call_limits`);
3. cost: the reply's cost from the price book (:mod:`router.pricing`); a bug in pricing costs
   the estimate, never the response;
4. assembly (:func:`assemble_response`);
5. the validators (REQUIRED grounding among them), which fail closed.

``extract()`` takes steps 3 and 4 only (:func:`offline_response`): a stored reply is read, not
judged. :func:`load_prices` reads the providers' price tables through the registry, so the price
book itself never imports it.

Assembly: ``metadata`` repeats ``citations``, ``grounded_effective``, ``two_step``,
``tool_call_count`` and the ``warnings`` (DESIGN.md section 2), and echoes the request's own
metadata as ``request_metadata``. Provider text may hold lone surrogates (JSON escapes): they are
scrubbed so the response can always be written out. The response is built with
``model_construct``, not validated again: every value comes from the router's own typed code (the
adapter's ``AdapterResult``, the request, the cost), and validating the citations once more
copied each citation dict on every call for nothing. The tests hold that every assembled
response validates (``LLMResponse.model_validate`` of its dump gives it back), for every
recorded reply and every vendor's emulated call. A provider that quotes the caller's key in its
answer does not hand it to the caller: assembly ends by redacting strong secrets from every text
the response carries (:mod:`router.text.echoes`), before the validators see it.

Only ``RouterError`` subclasses leave the router: :func:`guarded` / :func:`aguarded` turn
anything else into one (never retried).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from adapters.base import AdapterResult
from adapters.registry import PROVIDERS
from router.call_limits import CallLimits
from router.citations.redirects import RedirectResolver
from router.citations.resolution import redirect_link_urls, with_resolved_redirects
from router.errors import ResponseParseError, RouterError
from router.logging import get_logger, grounding_debug_enabled
from router.pricing import Metered, PriceBook, parse_price_file
from router.pricing.table import VendorPrices
from router.settings import RouterSettings
from router.text.echoes import redacted_response
from router.text.lone_surrogates import (
    may_hold_lone_surrogate,
    scrub,
    scrub_citations,
    scrub_value,
)
from router.text.nesting import nesting_depth
from router.text.written import written
from router.types import Cost, LLMRequest, LLMResponse, Vendor
from router.validation import Validator, run_validators

__all__ = [
    "Responder",
    "aguarded",
    "assemble_response",
    "builtin_prices",
    "guarded",
    "load_prices",
    "offline_response",
    "reply_cost",
    "unexpected",
]

T = TypeVar("T")

log = get_logger(__name__)


@dataclass(slots=True)
class Responder:
    """A router's last step: its settings, prices, validators and redirect resolver."""

    settings: RouterSettings
    prices: PriceBook
    validators: tuple[Validator, ...]
    resolver: RedirectResolver | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def respond(
        self,
        request: LLMRequest,
        label: str,
        result: AdapterResult,
        *,
        attempts: int,
        started: float,
        limits: CallLimits | None = None,
    ) -> LLMResponse:
        """The validated response of ``result`` (``label``: the provider's name for people)."""
        _check_nesting(result, self.settings.max_json_depth)
        if limits is not None:
            _note_cuts(request, label, result, limits)
        cost = reply_cost(self.prices, request, result)
        latency_ms = (time.perf_counter() - started) * 1000.0
        response = guarded(
            lambda: assemble_response(
                request, result, attempts=attempts, latency_ms=latency_ms, cost=cost
            )
        )
        for warning in result.warnings:
            log.warning(
                warning, vendor=request.vendor, model=request.model, request_id=request.request_id
            )
        run_validators(self.validators, request, response)
        if grounding_debug_enabled():
            log.debug(
                "route_completed",
                vendor=request.vendor,
                model=request.model,
                request_id=request.request_id,
                attempts=attempts,
                citations=len(response.citations),
                grounded_effective=response.grounded_effective,
                latency_ms=round(response.latency_ms, 1),
            )
        return response

    def resolve(self, result: AdapterResult) -> None:
        """Resolve the redirect links of ``result``'s citations, when resolution is on."""
        if (links := self._links_to_resolve(result)) is not None:
            _resolve_links(result, links[0].resolve_many_sync(links[1]))

    async def aresolve(self, result: AdapterResult) -> None:
        """The async twin of :meth:`resolve`."""
        if (links := self._links_to_resolve(result)) is not None:
            _resolve_links(result, await links[0].resolve_many(links[1]))

    def _links_to_resolve(self, result: AdapterResult) -> tuple[RedirectResolver, list[str]] | None:
        """The resolver and the redirect links of ``result`` to ask it about, or None.

        None while ``resolve_redirects`` is off or when no citation is a redirect link; the
        resolver is built on first use.
        """
        if not self.settings.resolve_redirects:
            return None
        urls = redirect_link_urls(result.citations)
        if not urls:
            return None
        with self._lock:
            if self.resolver is None:
                self.resolver = RedirectResolver(self.settings)
            return self.resolver, urls


def offline_response(asked: LLMRequest, result: AdapterResult) -> LLMResponse:
    """The response of a reply read offline: no latency, no attempts, list-price cost."""
    cost = reply_cost(_list_prices(), asked, result)
    return assemble_response(asked, result, attempts=0, latency_ms=0.0, cost=cost)


def reply_cost(prices: PriceBook, request: LLMRequest, result: AdapterResult) -> Cost | None:
    """The reply's cost; a bug in pricing costs the estimate, never the response."""
    metered = Metered(
        usage=result.usage,
        tool_calls=result.tool_call_count,
        queries=result.web_search_queries,
    )
    try:
        return prices.cost(request.vendor, (result.model_version, request.model), metered)
    except Exception:
        log.exception("cost_estimate_failed", vendor=request.vendor, model=request.model)
        return None


@cache
def builtin_prices() -> Mapping[str, VendorPrices]:
    """Each registered vendor's prices from its provider package's ``prices.toml``."""
    tables: dict[str, VendorPrices] = {}
    for row in PROVIDERS.values():
        resource = row.price_file()
        if resource is None:
            continue
        sections = parse_price_file(resource.read_text("utf-8"), source=str(resource))
        if row.vendor in sections:
            tables[row.vendor] = sections[row.vendor]
    return tables


def load_prices(user_file: Path | None = None) -> PriceBook:
    """The built-in prices, with ``user_file`` (``GROUNDING_ROUTER_PRICES``) laid over them."""
    return PriceBook.load(builtin_prices(), tuple(PROVIDERS), user_file)


@cache
def _list_prices() -> PriceBook:
    return load_prices()


def assemble_response(
    request: LLMRequest,
    result: AdapterResult,
    *,
    attempts: int,
    latency_ms: float,
    cost: Cost | None = None,
) -> LLMResponse:
    """The response of ``request`` from the adapter's result (lone surrogates scrubbed, and no
    strong secret left in it: :mod:`router.text.echoes`)."""
    texts = written(_texts_of(request, result))
    if may_hold_lone_surrogate(texts):
        result, texts = _scrubbed(result), None
    metadata: dict[str, Any] = dict(result.metadata)
    metadata.update(
        citations=result.citations,
        grounded_effective=result.grounded_effective,
        two_step=bool(result.metadata.get("two_step", False)),
        tool_call_count=result.tool_call_count,
        warnings=list(result.warnings),
    )
    if request.metadata:
        metadata["request_metadata"] = request.metadata
    response = LLMResponse.assembled(
        {
            "request_id": request.request_id,
            "vendor": request.vendor,
            "model": request.model,
            "model_version": result.model_version or None,
            "content": result.content,
            "parsed": result.parsed,
            "grounded_effective": result.grounded_effective,
            "tool_call_count": result.tool_call_count,
            "web_search_queries": list(result.web_search_queries),
            # A list of its own; the dicts are those of metadata.
            "citations": list(result.citations),
            "attributions": [each.copy() for each in result.attributions],
            "search_entry_point": result.search_entry_point or None,
            "usage": result.usage.model_copy(update={"cost": cost}),
            "latency_ms": latency_ms,
            "attempts": attempts,
            "metadata": metadata,
        }
    )
    return redacted_response(response, texts)


def _texts_of(request: LLMRequest, result: AdapterResult) -> tuple[Any, ...]:
    """Every value that text of the response is taken from."""
    return (
        request.metadata,
        result.content,
        result.parsed,
        result.metadata,
        result.citations,
        result.attributions,
        result.web_search_queries,
        result.model_version,
        result.search_entry_point,
        result.warnings,
    )


def _scrubbed(result: AdapterResult) -> AdapterResult:
    """A copy of ``result`` with its lone surrogates replaced (copies only of what holds text)."""
    return replace(
        result,
        content=scrub(result.content),
        parsed=scrub_value(result.parsed),
        metadata=scrub_value(dict(result.metadata)),
        citations=scrub_citations(result.citations),
        attributions=[
            {**each, "text": scrub(each["text"]), "cited_text": _scrub_optional(each["cited_text"])}
            for each in result.attributions
        ],
        web_search_queries=[scrub(query) for query in result.web_search_queries],
        model_version=scrub(result.model_version) if result.model_version else None,
        search_entry_point=(
            scrub(result.search_entry_point) if result.search_entry_point else None
        ),
        warnings=[scrub(warning) for warning in result.warnings],
    )


def _scrub_optional(text: str | None) -> str | None:
    return None if text is None else scrub(text)


def _note_cuts(request: LLMRequest, label: str, result: AdapterResult, limits: CallLimits) -> None:
    """Say so when a limit cut the reply's citations or its forensic events."""
    if limits.citations_cut:
        kept = limits.max_citations
        result.warnings.append(
            f"[CITATIONS] {label}: the reply named more sources than "
            f"GROUNDING_ROUTER_MAX_CITATIONS={kept}; the first {kept} were kept, "
            f"{limits.citations_cut} cut"
        )
    if limits.max_debug_events is not None and limits.debug_events > limits.max_debug_events:
        log.warning(
            "forensic_events_cut",
            vendor=request.vendor,
            request_id=request.request_id,
            kept=limits.max_debug_events,
            setting="GROUNDING_ROUTER_MAX_DEBUG_EVENTS",
        )


def _check_nesting(result: AdapterResult, limit: int) -> None:
    """A JSON answer deeper than the limit is refused: no response could carry it as JSON."""
    if result.parsed is None:
        return
    if nesting_depth(result.parsed, stop_at=limit) > limit:
        raise ResponseParseError(
            f"the JSON answer nests more than {limit} levels deep, more than a response may hold "
            "(GROUNDING_ROUTER_MAX_JSON_DEPTH)",
            reason="json_too_deep",
        )


def _resolve_links(result: AdapterResult, targets: Mapping[str, str]) -> None:
    """Put the resolved targets of ``result``'s redirect links into its citations."""
    result.citations = guarded(
        lambda: with_resolved_redirects(result.citations, targets, result.attributions)
    )


def unexpected(exc: BaseException, vendor: Vendor | None = None) -> RouterError:
    """An exception from outside the RouterError tree, as a RouterError (never retried).

    A reply the SDK could not decode (cut inside a UTF-8 character, too deep, an integer past
    the digit limit) is classified as the error tree says instead: ``ProviderTransientError``
    for a cut connection, ``ResponseParseError`` for a reply that cannot be used.
    """
    from adapters.sdk.errors import unreadable_body

    classified = unreadable_body(exc, vendor=vendor, label=vendor or "the provider")
    if classified is not None:
        return classified
    return RouterError(
        f"unexpected {type(exc).__name__} inside the router: {exc}", reason="unexpected_error"
    )


def guarded(call: Callable[[], T]) -> T:
    """Run ``call``; anything outside the RouterError tree becomes a RouterError (not retried)."""
    try:
        return call()
    except RouterError:
        raise
    except Exception as exc:
        raise unexpected(exc) from exc


async def aguarded(call: Callable[[], Awaitable[T]]) -> T:
    """The async twin of :func:`guarded`."""
    try:
        return await call()
    except RouterError:
        raise
    except Exception as exc:
        raise unexpected(exc) from exc
