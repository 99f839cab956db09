"""The keyword arguments of ``client.responses.create`` for one router request (pure).

Grounded requests get the hosted ``web_search`` tool (with the caller's approximate location,
only the fields given, ``filters.allowed_domains`` when the request lists allowed domains: the
tool has no blocked list, and ``search_context_size`` when the request sets it) and ask for
``web_search_call.action.sources`` so the searched pages come back too. REQUIRED grounding is
enforced by the router's post-validation, as for every provider (DESIGN.md section 4): no
``tool_choice`` is sent, since some models and deployments reject a forced hosted tool. With
``force_search`` (``GROUNDING_ROUTER_OPENAI_FORCE_SEARCH=true``) a REQUIRED request sets
``tool_choice="required"``: web_search is the only tool, so that forces a search. The SDK's
types do not accept ``{"type": "web_search"}`` as a tool choice; ``"required"`` is the
documented way.

JSON answers use ``text.format``: a ``json_schema`` format when the caller gave a schema
(``strict`` only when the schema satisfies Structured Outputs, see
:func:`adapters.openai_compatible.json_schema.is_strict_compatible`),
otherwise ``json_object``, which the API accepts only when the word "JSON" appears in the
input; the instructions say so whenever the caller's do not.
"""

from __future__ import annotations

from typing import Any

from adapters.openai_compatible.json_schema import is_strict_compatible, schema_name
from router.types import LLMRequest

__all__ = [
    "JSON_OBJECT_INSTRUCTION",
    "SOURCES_INCLUDE",
    "build_response_params",
    "is_strict_compatible",
    "schema_name",
]

SOURCES_INCLUDE = "web_search_call.action.sources"
JSON_OBJECT_INSTRUCTION = "Reply with a single JSON object."


def build_response_params(request: LLMRequest, *, force_search: bool = False) -> dict[str, Any]:
    """``responses.create`` keyword arguments for ``request`` (no timeout, no client options).

    ``force_search`` sends ``tool_choice="required"`` with a REQUIRED grounded request.
    """
    system = [m.text for m in request.messages if m.role == "system"]
    params: dict[str, Any] = {
        "model": request.model,
        "input": [
            {"role": m.role, "content": m.text} for m in request.messages if m.role != "system"
        ],
    }
    text_format = _text_format(request)
    if text_format is not None:
        params["text"] = {"format": text_format}
        if text_format["type"] == "json_object" and not any("json" in s.lower() for s in system):
            system.append(JSON_OBJECT_INSTRUCTION)
    if system:
        params["instructions"] = "\n\n".join(system)
    if request.grounded:
        params["tools"] = [_web_search_tool(request)]
        params["include"] = [SOURCES_INCLUDE]
        if force_search and request.grounding_mode == "REQUIRED":
            params["tool_choice"] = "required"
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.max_output_tokens is not None:
        params["max_output_tokens"] = request.max_output_tokens
    return params


def _web_search_tool(request: LLMRequest) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": "web_search"}
    if request.allowed_domains is not None:
        # The only domain filter the web_search tool has (there is no blocked list).
        tool["filters"] = {"allowed_domains": list(request.allowed_domains)}
    if request.search_context_size is not None:
        tool["search_context_size"] = request.search_context_size
    location = request.user_location
    if location is None:
        return tool
    given = {
        key: value
        for key, value in location.model_dump().items()
        if key in ("country", "region", "city", "timezone") and value
    }
    if given:
        tool["user_location"] = {"type": "approximate", **given}
    return tool


def _text_format(request: LLMRequest) -> dict[str, Any] | None:
    if request.json_schema is not None:
        return {
            "type": "json_schema",
            "name": schema_name(request.json_schema),
            "schema": request.json_schema,
            "strict": is_strict_compatible(request.json_schema),
        }
    if request.json_mode:
        return {"type": "json_object"}
    return None
