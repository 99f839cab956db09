"""OpenRouter's chat completions with its web plugin: the body of one call (pure).

A grounded request adds the web plugin, ``plugins: [{"id": "web"}]`` (what a ``:online`` model
suffix means; a model that already ends in ``:online`` gets no second plugin), with the user's
location as the plugin's ``user_location`` (type ``approximate``, only the fields given) and
the request's ``allowed_domains`` / ``blocked_domains`` as the plugin's ``include_domains`` /
``exclude_domains`` (a ``:online`` model gets the plugin only to carry these). OpenRouter
sends the call's cost as ``usage.cost`` with every reply: nothing needs asking for it.
OpenRouter answers with ``url_citation`` annotations carrying the page text as ``content``
(kept as the snippet); with its own search engine it sets both offsets to 0, so those
citations have no span (provider-quirks section 1). JSON answers use ``response_format``:
``json_schema`` with the schema (``strict`` as for OpenAI's Structured Outputs), or
``json_object``; search and JSON combine in one call.
"""

from __future__ import annotations

from typing import Any

from adapters.openai_compatible.json_schema import is_strict_compatible, schema_name
from router.types import LLMRequest

__all__ = ["CHAT_PATH", "DEFAULT_BASE_URL", "build_openrouter_params"]

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
CHAT_PATH = "/chat/completions"
_ONLINE_SUFFIX = ":online"


def build_openrouter_params(request: LLMRequest) -> dict[str, Any]:
    """The JSON body of the chat completion for ``request``."""
    params: dict[str, Any] = {
        "model": request.model,
        "messages": [{"role": m.role, "content": m.text} for m in request.messages],
    }
    if request.grounded:
        plugin = _web_plugin(request)
        filtered = "include_domains" in plugin or "exclude_domains" in plugin
        if filtered or not request.model.endswith(_ONLINE_SUFFIX):
            params["plugins"] = [plugin]
    if request.json_schema is not None:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": schema_name(request.json_schema),
                "schema": request.json_schema,
                "strict": is_strict_compatible(request.json_schema),
            },
        }
    elif request.json_mode:
        params["response_format"] = {"type": "json_object"}
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        params["max_tokens"] = request.max_output_tokens
    return params


def _web_plugin(request: LLMRequest) -> dict[str, Any]:
    plugin: dict[str, Any] = {"id": "web"}
    location = request.user_location
    if location is not None:
        given = {
            key: value
            for key, value in location.model_dump().items()
            if key in ("country", "region", "city", "timezone") and value
        }
        if given:
            plugin["user_location"] = {"type": "approximate", **given}
    if request.allowed_domains is not None:
        plugin["include_domains"] = list(request.allowed_domains)
    if request.blocked_domains is not None:
        plugin["exclude_domains"] = list(request.blocked_domains)
    return plugin
