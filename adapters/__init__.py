"""Provider adapters: one package per provider behind one contract, listed in one registry.

``base`` is the ``Adapter`` contract and ``registry`` the row of each vendor (see its docstring
for adding a provider). ``sdk`` is sending through an SDK with no provider named,
``openai_compatible`` what the providers reached with the ``openai`` SDK share, and ``openai``,
``vertex``, ``anthropic``, ``perplexity`` and ``openrouter`` the providers, all of one shape.
``stream_reader``, ``two_step`` and ``json_answer`` are the provider-neutral halves of stream
reading, two-step JSON and JSON answers. ``openai_adapter`` and ``vertex_adapter`` keep the
extractors under the names DESIGN.md gives them. Adapters are imported lazily by the router, so
importing this package loads no SDK.
"""

from adapters.base import Adapter, AdapterResult

__all__ = ["Adapter", "AdapterResult"]
