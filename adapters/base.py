"""The contract between the router and a provider adapter.

An adapter builds the provider call, sends it through the provider's official SDK (SDK retries
off: the router owns retries), translates SDK errors into router errors at the boundary, and
hands the reply to pure mapping functions that return an :class:`AdapterResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from router.settings import RouterSettings
from router.types import Citation, LLMRequest, Usage, Vendor

__all__ = ["Adapter", "AdapterResult"]


@dataclass(slots=True)
class AdapterResult:
    """What one adapter call produced, before the router adds timing, attempts and validation.

    ``metadata`` carries adapter-specific extras (``two_step``, ``step1``, counts of dropped
    sources, ...) that the router merges into ``LLMResponse.metadata``.
    """

    content: str
    parsed: Any = None
    model_version: str | None = None
    grounded_effective: bool = False
    tool_call_count: int = 0
    web_search_queries: list[str] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    search_entry_point: str | None = None
    usage: Usage = field(default_factory=Usage)
    warnings: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


class Adapter(Protocol):
    """One provider behind the router. Instances are reused across calls and threads."""

    vendor: Vendor

    def complete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """Send ``request`` once (no retries) and map the reply."""
        ...

    async def acomplete(self, request: LLMRequest, settings: RouterSettings) -> AdapterResult:
        """The async twin of :meth:`complete`."""
        ...

    def close(self) -> None:
        """Release the SDK clients this adapter holds (sync ones; async ones where possible)."""
        ...

    async def aclose(self) -> None:
        """Release the async SDK clients created on the running event loop."""
        ...
