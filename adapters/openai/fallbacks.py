"""One changed retry when the API refuses part of a grounded request (DESIGN.md section 4).

Two refusals have a request that works instead, so the adapter sends it once more, changed:

- a 400 whose message names ``tool_choice`` while the request forces the search (only with
  ``GROUNDING_ROUTER_OPENAI_FORCE_SEARCH=true``): some models and deployments reject a forced
  hosted tool. The retry drops ``tool_choice``; REQUIRED is still post-validated.
- a 400 saying the model does not support ``web_search``: the retry uses the older
  ``web_search_preview`` tool, which such models (and some Azure deployments) still take.

Each change happens at most once per call (what it removes is gone from the retried request).
The adapter records the changes in ``metadata["request_fallbacks"]`` and logs each one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from router.errors import ProviderRequestError

__all__ = ["PREVIEW_SEARCH", "TOOL_CHOICE_DROPPED", "fallback_for"]

TOOL_CHOICE_DROPPED = "tool_choice_dropped"
PREVIEW_SEARCH = "web_search_preview"

_NAMES_TOOL_CHOICE = re.compile(r"tool[_ ]choice", re.IGNORECASE)
# "Hosted tool 'web_search' is not supported with gpt-4.1-nano.", "... does not support
# web_search", "web_search is unsupported ...": web_search named, and a refusal, either order.
_REFUSAL = r"(?:not supported|unsupported|does not support|doesn't support|not available)"
_REFUSES_WEB_SEARCH = re.compile(
    rf"web_search(?!_preview).*{_REFUSAL}|{_REFUSAL}.*web_search(?!_preview)",
    re.IGNORECASE | re.DOTALL,
)


def fallback_for(
    error: ProviderRequestError, params: Mapping[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """What to change and the request to send once more, or None when ``error`` stands."""
    if error.status_code != 400:
        return None
    message = error.provider_message or str(error)
    if "tool_choice" in params and _NAMES_TOOL_CHOICE.search(message):
        return TOOL_CHOICE_DROPPED, {k: v for k, v in params.items() if k != "tool_choice"}
    tools = params.get("tools")
    if not isinstance(tools, list) or not any(_is_web_search(tool) for tool in tools):
        return None
    if _REFUSES_WEB_SEARCH.search(message):
        changed = dict(params)
        changed["tools"] = [
            {**tool, "type": PREVIEW_SEARCH} if _is_web_search(tool) else tool for tool in tools
        ]
        return PREVIEW_SEARCH, changed
    return None


def _is_web_search(tool: object) -> bool:
    return isinstance(tool, Mapping) and tool.get("type") == "web_search"
