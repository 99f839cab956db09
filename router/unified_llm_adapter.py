"""The router under the module name the original spec gives it.

The hub is :class:`router.router.Router`; ``UnifiedLLMAdapter`` is its alias, and this module
re-exports both with the process-wide entry points, so ``from router.unified_llm_adapter import
UnifiedLLMAdapter`` keeps working.
"""

from __future__ import annotations

from router.router import Router, UnifiedLLMAdapter, aroute, astream, route, stream

__all__ = ["Router", "UnifiedLLMAdapter", "aroute", "astream", "route", "stream"]
