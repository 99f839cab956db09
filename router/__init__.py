"""grounding-router: grounded LLM answers with uniform citations, one ``route()`` for all providers.

``import router`` is cheap and loads no provider SDK: the public names below are imported on
first access (PEP 562), and the adapters only when a call first needs them.

The public API is listed once, as the imports under ``TYPE_CHECKING`` (``name as name``: an
explicit re-export, so type checkers see every name with its type). At run time nothing there is
imported; the first name asked for reads that list from this file's source and keeps it, with
``__all__`` drawn from it.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from router.aggregate import Aggregate as Aggregate
    from router.aggregate import aggregate as aggregate
    from router.errors import ConfigurationError as ConfigurationError
    from router.errors import FanoutError as FanoutError
    from router.errors import GroundingRequiredFailedError as GroundingRequiredFailedError
    from router.errors import GroundingValidationError as GroundingValidationError
    from router.errors import ProviderError as ProviderError
    from router.errors import ProviderRequestError as ProviderRequestError
    from router.errors import ProviderTransientError as ProviderTransientError
    from router.errors import RequestValidationError as RequestValidationError
    from router.errors import ResponseParseError as ResponseParseError
    from router.errors import RouterError as RouterError
    from router.extraction import extract as extract
    from router.fanout import FanoutResult as FanoutResult
    from router.grounding import GroundingPolicy as GroundingPolicy
    from router.grounding import GroundingReport as GroundingReport
    from router.grounding import lexical as lexical
    from router.grounding import provider_confidence as provider_confidence
    from router.grounding import verify as verify
    from router.router import Router as Router
    from router.router import UnifiedLLMAdapter as UnifiedLLMAdapter
    from router.router import aroute as aroute
    from router.router import aroute_many as aroute_many
    from router.router import astream as astream
    from router.router import route as route
    from router.router import route_many as route_many
    from router.router import stream as stream
    from router.settings import RouterSettings as RouterSettings
    from router.streaming import CitationDelta as CitationDelta
    from router.streaming import Completed as Completed
    from router.streaming import SearchStarted as SearchStarted
    from router.streaming import StreamAccumulator as StreamAccumulator
    from router.streaming import StreamEvent as StreamEvent
    from router.streaming import TextDelta as TextDelta
    from router.types import Attribution as Attribution
    from router.types import Citation as Citation
    from router.types import Cost as Cost
    from router.types import LLMRequest as LLMRequest
    from router.types import LLMResponse as LLMResponse
    from router.types import Message as Message
    from router.types import Span as Span
    from router.types import Usage as Usage
    from router.types import UserLocation as UserLocation

__version__ = "0.1.0"


@functools.cache
def _public() -> dict[str, str]:
    """Each public name -> the module it comes from, read once from the list above."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(__file__).read_text("utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    return {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
        for alias in node.names
    }


def _all() -> list[str]:
    return sorted([*_public(), "__version__"])


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return _all()
    module_name = _public().get(name)
    if module_name is None:
        raise AttributeError(f"module 'router' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return _all()
