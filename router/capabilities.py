"""What a vendor may be asked: :func:`check_request`, read from the registry rows.

Each provider's row states its capabilities (:class:`adapters.registry.Capabilities`, every flag
off unless the row turns it on); the router asks here before any adapter is called, instead of
testing vendor names, so a request the provider cannot serve is refused the same way for all.
"""

from __future__ import annotations

from adapters.registry import PROVIDERS, ProviderRow, provider
from router.errors import RequestValidationError
from router.types import LLMRequest

__all__ = ["check_request"]

_SEARCH_OPTIONS = ("search_context_size", "search_recency")


def check_request(request: LLMRequest, row: ProviderRow | None = None) -> None:
    """Refuse what the vendor's provider cannot do: a domain filter (or both, or too many
    domains), a search option or documents it lacks.

    The router calls this before any adapter (with the vendor's ``row`` it has already looked
    up), so every provider refuses the same way: a ``RequestValidationError`` naming the vendor,
    the field and what the provider does support.
    """
    if row is None:
        row = provider(request.vendor)
    capabilities = row.capabilities
    filters = {
        "allowed_domains": capabilities.allowed_domains,
        "blocked_domains": capabilities.blocked_domains,
    }
    for name, supported in filters.items():
        if getattr(request, name) is not None and not supported:
            offered = [other for other, has in filters.items() if has]
            said = (
                f"it supports only {' and '.join(offered)}"
                if offered
                else "its search takes no domain filter"
            )
            raise RequestValidationError(
                f"{name}: {row.label} ({row.vendor!r}) has no {name.replace('_', ' ')} filter; "
                f"{said}",
                field=name,
                request_id=request.request_id,
            )
    if (
        request.allowed_domains is not None
        and request.blocked_domains is not None
        and not capabilities.domain_filters_together
    ):
        raise RequestValidationError(
            f"allowed_domains: {row.label} ({row.vendor!r}) takes allowed_domains or "
            "blocked_domains, not both in one request",
            field="allowed_domains",
            request_id=request.request_id,
        )
    limit = capabilities.max_domains
    for name in filters:
        listed = getattr(request, name)
        if limit is not None and listed is not None and len(listed) > limit:
            raise RequestValidationError(
                f"{name}: {row.label} ({row.vendor!r}) takes at most {limit} domains, "
                f"got {len(listed)}",
                field=name,
                request_id=request.request_id,
            )
    for option in _SEARCH_OPTIONS:
        if getattr(request, option) is not None and not getattr(capabilities, option):
            having = [
                other.vendor for other in PROVIDERS.values() if getattr(other.capabilities, option)
            ]
            raise RequestValidationError(
                f"{option}: {row.label} ({row.vendor!r}) has no such search option; "
                f"vendors that take it: {', '.join(map(repr, having))}",
                field=option,
                request_id=request.request_id,
            )
    if request.documents and not capabilities.documents:
        accepting = [other.vendor for other in PROVIDERS.values() if other.capabilities.documents]
        raise RequestValidationError(
            f"messages: {row.label} ({row.vendor!r}) does not accept document parts; send text "
            f"only, or use a vendor that cites documents: {', '.join(map(repr, accepting))}",
            field="messages",
            request_id=request.request_id,
        )
