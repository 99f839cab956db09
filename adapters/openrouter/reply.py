"""An OpenRouter chat completion mapped to the router's :class:`AdapterResult` (pure).

OpenAI's Chat Completions reader does the reading
(:func:`adapters.openai_compatible.reply.map_compatible_reply` under OpenRouter's name).
OpenRouter's additions to the shape are read here:

- ``usage.cost`` is the cost OpenRouter charged (``Usage.reported_cost``); the part beyond
  ``usage.cost_details.upstream_inference_cost`` is the plugin's search fee
  (``reported_search_cost``);
- ``usage.server_tool_use_details.web_search_requests`` counts the searches the web plugin ran:
  it is the tool call count, and a reply that ran one is grounded even when nothing is cited
  (without it a chat completion shows its search only by its annotations).
"""

from __future__ import annotations

import math

from adapters.base import AdapterResult
from adapters.openai_compatible.reply import map_compatible_reply
from adapters.openrouter.errors import OPENROUTER
from adapters.sdk.values import as_dict
from router.types import LLMRequest

__all__ = ["map_openrouter_reply"]


def map_openrouter_reply(
    reply: object, request: LLMRequest, *, strict: bool = True
) -> AdapterResult:
    """The result of one OpenRouter reply to ``request`` (see the module docstring)."""
    result = map_compatible_reply(reply, request, strict=strict, service=OPENROUTER)
    usage = as_dict(as_dict(reply).get("usage"))
    cost = _money(usage.get("cost"))
    if cost is not None:
        upstream = _money(as_dict(usage.get("cost_details")).get("upstream_inference_cost"))
        searches = cost - upstream if upstream is not None and upstream <= cost else None
        result.usage = result.usage.model_copy(
            update={"reported_cost": cost, "reported_search_cost": searches}
        )
    requests = as_dict(usage.get("server_tool_use_details")).get("web_search_requests")
    if type(requests) is int and requests > 0:
        result.tool_call_count = max(result.tool_call_count, requests)
        result.grounded_effective = True
        if not result.citations:
            result.warnings.append(
                f"[CITATIONS] OpenRouter: {requests} tool calls but 0 citations extracted."
            )
    return result


def _money(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
        return number if math.isfinite(number) and number >= 0 else None
    return None
