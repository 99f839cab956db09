"""The body of one Sonar ``POST /chat/completions`` call for a router request (pure).

- Messages go as they are (system, user, assistant).
- Perplexity searches by default; an ungrounded request sends ``disable_search: true``.
- ``user_location`` becomes ``web_search_options.user_location`` (country, region, city: the
  fields Perplexity takes; it has none for a time zone), ``search_context_size`` becomes
  ``web_search_options.search_context_size`` and ``search_recency`` ``search_recency_filter``.
- ``allowed_domains`` / ``blocked_domains`` become ``search_domain_filter``, blocked ones
  prefixed with ``-`` (Perplexity takes one list of at most 20, all allowed or all blocked: the
  router refuses more, or both, before any call).
- JSON answers use ``response_format`` ``json_schema`` with the request's schema, or a schema
  for any object when only ``json_mode`` is set (Sonar takes no schema-less JSON mode). Search
  and a schema combine in one call, with citations intact: no two-step reshape.
- ``max_output_tokens`` is ``max_tokens``; ``temperature`` is sent when given.
"""

from __future__ import annotations

from typing import Any

from router.types import LLMRequest

__all__ = ["CHAT_PATH", "build_chat_params"]

CHAT_PATH = "/chat/completions"
_ANY_OBJECT: dict[str, Any] = {"type": "object"}


def build_chat_params(request: LLMRequest) -> dict[str, Any]:
    """The JSON body of the call for ``request`` (the client adds nothing but ``stream``)."""
    params: dict[str, Any] = {
        "model": request.model,
        "messages": [{"role": m.role, "content": m.text} for m in request.messages],
    }
    if not request.grounded:
        params["disable_search"] = True
    search_options: dict[str, Any] = {}
    location = request.user_location
    if request.grounded and request.search_context_size is not None:
        search_options["search_context_size"] = request.search_context_size
    if request.grounded and location is not None:
        given = {
            key: value
            for key, value in (
                ("country", location.country),
                ("region", location.region),
                ("city", location.city),
            )
            if value
        }
        if given:
            search_options["user_location"] = given
    if search_options:
        params["web_search_options"] = search_options
    if request.grounded:
        _add_search_filters(params, request)
    if request.wants_json:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"schema": request.json_schema or _ANY_OBJECT},
        }
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        params["max_tokens"] = request.max_output_tokens
    return params


def _add_search_filters(params: dict[str, Any], request: LLMRequest) -> None:
    """The domain filter (blocked domains written ``-domain``) and the recency filter."""
    domains = list(request.allowed_domains or ())
    domains += [f"-{domain}" for domain in request.blocked_domains or ()]
    if domains:
        params["search_domain_filter"] = domains
    if request.search_recency is not None:
        params["search_recency_filter"] = request.search_recency
