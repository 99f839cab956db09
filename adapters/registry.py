"""The provider registry: one row per vendor, the only place that knows which providers exist.

A row names the provider's adapter class by import path (loaded on first use, so ``import
router`` and ``grounding-router --help`` load no SDK) and states what the provider can do. The
router, the command line, the batch runner and the demo ask the registry; no code outside a
provider package (and its emulator API module) compares a vendor name to a literal, which
``tests/test_import_graph.py`` checks. A provider prices its calls with a ``prices.toml`` in its
package (see :mod:`router.pricing`): data, found beside its adapter.

Two more import paths make a provider readable offline and streamable (the protocols are in
:mod:`adapters.base`): ``reply_mapper_path`` names its final-reply mapper
(``"module:function"``, a ``ReplyMapper``, always ``adapters.<name>.reply:map_<vendor>_reply``),
which ``extract()`` uses on stored replies, and ``stream_reader_path`` its stream reader class
(``"module:Class"``, a ``StreamFormat``), which ``stream()`` and ``extract()`` use on streams.
``Capabilities.streaming`` says whether the adapter implements ``StreamingAdapter``; a provider
whose stream can be read offline but not requested through its adapter names a reader with
``streaming=False``.

Adding a provider (12 product files: 9 new, 3 edited; then its tests)
--------------------------------------------------------------------

New, one package ``adapters/<name>/`` of eight files, all of one shape:

1. ``__init__.py``: a docstring saying what the provider is and which SDK reaches it;
2. ``adapter.py``: the adapter class (``complete``/``acomplete``, and ``stream``/``astream``/
   ``finish_stream`` when it streams); a provider reached with the ``openai`` SDK subclasses
   :class:`adapters.openai_compatible.adapter.OpenAICompatibleAdapter` and writes three methods;
3. ``request.py``: the call's body for one ``LLMRequest`` (pure);
4. ``reply.py``: the one registry mapper, ``map_<vendor>_reply(reply, request, *, strict)``;
5. ``citations.py``: the provider's sources read into uniform citations (pure);
6. ``stream.py``: the stream reader, a :class:`adapters.stream_reader.StreamReaderBase`;
7. ``errors.py``: the SDK's errors translated into the router's (through
   :mod:`adapters.sdk.errors`, or :mod:`adapters.openai_compatible.errors` for an
   OpenAI-compatible service, which needs only its names there);
8. ``prices.toml``: the price table, for a provider whose reply does not report its cost;

plus modules named for what only this provider has. Shared pieces come from ``adapters.sdk``
(clients, deadlines, errors), ``adapters.openai_compatible`` and ``adapters.two_step``, never
from another provider's package. And one more new file outside ``adapters/``:

9. ``router/emulator/apis/<name>.py``: the provider's API in the loopback emulator, one row.

Edited, one place each:

10. this module: one ``ProviderRow`` (vendor, label, adapter, mapper and reader paths, default
    model, capabilities, the settings it reads);
11. ``router/types.py``: the vendor in the ``Vendor`` literal (a test keeps it in step with this
    table);
12. ``router/settings.py``: its key and base-URL fields.

Tests: a row in ``tests/adapters/test_contract.py`` (the provider's error kinds as data, which
runs it through the shared wire, fault, missing-key and slow-delivery cases), and golden tests
of its recorded replies under ``tests/adapters/<name>/``. OpenRouter's and Perplexity's
citations are the OpenAI shape's, read by :mod:`adapters.openai_compatible.citations`
(Perplexity adds its ``[n]`` markers in its own ``citations``); neither reports a price table,
since both replies carry their cost.
"""

from __future__ import annotations

import importlib
import importlib.resources
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from router.errors import RequestValidationError
from router.types import Vendor

if TYPE_CHECKING:
    from adapters.base import Adapter, ReplyMapper, StreamFormat

__all__ = [
    "PRICE_FILE",
    "PROVIDERS",
    "Capabilities",
    "OffsetUnit",
    "ProviderRow",
    "labels",
    "provider",
    "vendors",
]

OffsetUnit = Literal["chars", "bytes"]
PRICE_FILE = "prices.toml"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a provider can do through its adapter; every flag is off unless its row says so.

    ``offset_unit`` is the unit of the provider's own citation offsets (the router's spans are
    always characters: byte offsets are converted by the provider package).
    ``allowed_domains`` / ``blocked_domains``: the provider's search takes a list of domains to
    keep to / to leave out (``LLMRequest.allowed_domains`` / ``blocked_domains``).
    ``documents``: the provider accepts document parts in messages and cites them.
    ``domain_filters_together``: both lists may be given in one request (else one or the
    other); ``max_domains``: the most domains one list may name (None: no documented limit).
    ``search_context_size`` / ``search_recency``: the provider's search takes
    ``LLMRequest.search_context_size`` / ``search_recency``.
    ``grounded_results_restricted``: the provider's terms restrict storing grounded results
    (Google's Grounding with Google Search), so the response cache keeps them only when the
    user says so (``GROUNDING_ROUTER_CACHE_GOOGLE_GROUNDED``, :mod:`router.cache`).
    """

    streaming: bool = False
    citations: bool = False
    json_mode: bool = False
    two_step_json: bool = False
    offset_unit: OffsetUnit = "chars"
    allowed_domains: bool = False
    blocked_domains: bool = False
    documents: bool = False
    domain_filters_together: bool = False
    max_domains: int | None = None
    search_context_size: bool = False
    search_recency: bool = False
    grounded_results_restricted: bool = False


@dataclass(frozen=True, slots=True)
class ProviderRow:
    """One provider: its vendor name, who it is, its adapter and what it can do.

    ``genai_provider`` and ``genai_operation`` name the provider and its call in the
    OpenTelemetry GenAI semantic conventions (``gen_ai.provider.name``, a well-known value where
    there is one; None: the vendor name; ``gen_ai.operation.name``).
    """

    vendor: Vendor
    label: str
    adapter_path: str
    default_model: str
    capabilities: Capabilities
    settings: tuple[str, ...]
    summary: str
    reply_mapper_path: str | None = None
    stream_reader_path: str | None = None
    genai_provider: str | None = None
    genai_operation: str = "chat"

    def adapter_class(self) -> type[Adapter]:
        """Import the provider package (and its SDK) and return its adapter class."""
        adapter_class: type[Adapter] = _load(self.adapter_path)
        return adapter_class

    def reply_mapper(self) -> ReplyMapper | None:
        """The provider's final-reply mapper, imported on first use; None if it has none."""
        if self.reply_mapper_path is None:
            return None
        mapper: ReplyMapper = _load(self.reply_mapper_path)
        return mapper

    def stream_format(self) -> StreamFormat | None:
        """The provider's stream reader class, imported on first use; None if it has none."""
        if self.stream_reader_path is None:
            return None
        reader: StreamFormat = _load(self.stream_reader_path)
        return reader

    def new_adapter(self) -> Adapter:
        """A fresh adapter of this provider (each holds its own SDK clients)."""
        return self.adapter_class()()

    def price_file(self) -> Traversable | None:
        """The provider's price table, ``prices.toml`` in its package, or None if it has none.

        Finding it imports the provider package, which loads no SDK.
        """
        package = self.adapter_path.partition(":")[0].rpartition(".")[0]
        resource = importlib.resources.files(package) / PRICE_FILE
        return resource if resource.is_file() else None


def _load(path: str) -> Any:
    module_name, _, name = path.partition(":")
    return getattr(importlib.import_module(module_name), name)


_ROWS: tuple[ProviderRow, ...] = (
    ProviderRow(
        vendor="openai",
        label="OpenAI",
        adapter_path="adapters.openai.adapter:OpenAIAdapter",
        default_model="gpt-5",
        capabilities=Capabilities(
            streaming=True,
            citations=True,
            json_mode=True,
            two_step_json=False,
            offset_unit="chars",
            allowed_domains=True,
            blocked_domains=False,
            documents=False,
            search_context_size=True,
        ),
        settings=("OPENAI_API_KEY", "OPENAI_BASE_URL", "GROUNDING_ROUTER_OPENAI_FORCE_SEARCH"),
        summary="Responses API with the hosted web_search tool (openai SDK)",
        reply_mapper_path="adapters.openai.reply:map_openai_reply",
        stream_reader_path="adapters.openai.stream:OpenAIStreamReader",
    ),
    ProviderRow(
        vendor="vertex",
        label="Vertex AI",
        adapter_path="adapters.vertex.adapter:VertexAdapter",
        default_model="gemini-2.5-flash",
        capabilities=Capabilities(
            streaming=True,
            citations=True,
            json_mode=True,
            two_step_json=True,
            grounded_results_restricted=True,
            offset_unit="bytes",
            allowed_domains=False,
            blocked_domains=True,
            documents=False,
        ),
        settings=(
            "GOOGLE_CLOUD_PROJECT",
            "GOOGLE_CLOUD_LOCATION",
            "GROUNDING_ROUTER_VERTEX_BASE_URL",
            "GROUNDING_ROUTER_VERTEX_ACCESS_TOKEN",
        ),
        summary="Gemini on Vertex AI with Google Search grounding (google-genai, vertexai=True)",
        reply_mapper_path="adapters.vertex.reply:map_vertex_reply",
        stream_reader_path="adapters.vertex.stream:VertexStreamReader",
        genai_provider="gcp.vertex_ai",
        genai_operation="generate_content",
    ),
    ProviderRow(
        vendor="gemini",
        label="Gemini API",
        adapter_path="adapters.vertex.adapter:GeminiAdapter",
        default_model="gemini-2.5-flash",
        capabilities=Capabilities(
            streaming=True,
            citations=True,
            json_mode=True,
            two_step_json=True,
            grounded_results_restricted=True,
            offset_unit="bytes",
            allowed_domains=False,
            blocked_domains=False,
            documents=False,
        ),
        settings=(
            "GOOGLE_API_KEY",
            "GEMINI_API_KEY",
            "GROUNDING_ROUTER_GEMINI_BASE_URL",
            "GROUNDING_ROUTER_GEMINI_API_VERSION",
        ),
        summary="Gemini Developer API with Google Search grounding (google-genai, API key)",
        genai_provider="gcp.gemini",
        genai_operation="generate_content",
        reply_mapper_path="adapters.vertex.reply:map_gemini_reply",
        stream_reader_path="adapters.vertex.stream:GeminiStreamReader",
    ),
    ProviderRow(
        vendor="perplexity",
        label="Perplexity",
        adapter_path="adapters.perplexity.adapter:PerplexityAdapter",
        default_model="sonar",
        capabilities=Capabilities(
            streaming=True,
            citations=True,
            json_mode=True,
            two_step_json=False,
            offset_unit="chars",
            allowed_domains=True,
            blocked_domains=True,
            documents=False,
            max_domains=20,
            search_context_size=True,
            search_recency=True,
        ),
        settings=("PERPLEXITY_API_KEY", "PERPLEXITY_BASE_URL"),
        summary="Sonar chat completions, search-first, with [n] citations (openai SDK)",
        genai_provider="perplexity",
        reply_mapper_path="adapters.perplexity.reply:map_perplexity_reply",
        stream_reader_path="adapters.perplexity.stream:PerplexityStreamReader",
    ),
    ProviderRow(
        vendor="openrouter",
        label="OpenRouter",
        adapter_path="adapters.openrouter.adapter:OpenRouterAdapter",
        default_model="openai/gpt-4o-mini",
        capabilities=Capabilities(
            streaming=True,
            citations=True,
            json_mode=True,
            two_step_json=False,
            offset_unit="chars",
            allowed_domains=True,
            blocked_domains=True,
            documents=False,
        ),
        settings=("OPENROUTER_API_KEY", "OPENROUTER_BASE_URL"),
        summary="Chat completions with the web plugin, OpenAI's annotation shape (openai SDK)",
        reply_mapper_path="adapters.openrouter.reply:map_openrouter_reply",
        stream_reader_path="adapters.openrouter.stream:OpenRouterStreamReader",
    ),
    ProviderRow(
        vendor="anthropic",
        label="Anthropic",
        adapter_path="adapters.anthropic.adapter:AnthropicAdapter",
        default_model="claude-sonnet-4-6",
        capabilities=Capabilities(
            streaming=True,
            citations=True,
            json_mode=True,
            two_step_json=True,
            offset_unit="chars",
            allowed_domains=True,
            blocked_domains=True,
            documents=True,
        ),
        settings=(
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "GROUNDING_ROUTER_ANTHROPIC_MAX_SEARCHES",
        ),
        summary="Claude through the Messages API with the web search server tool (anthropic SDK)",
        reply_mapper_path="adapters.anthropic.reply:map_anthropic_reply",
        stream_reader_path="adapters.anthropic.stream:AnthropicStreamReader",
    ),
)

PROVIDERS: Mapping[Vendor, ProviderRow] = MappingProxyType({row.vendor: row for row in _ROWS})
_BY_NAME: Mapping[str, ProviderRow] = {row.vendor: row for row in _ROWS}


def vendors() -> tuple[Vendor, ...]:
    """Every registered vendor, in registry order."""
    return tuple(PROVIDERS)


def labels() -> str:
    """The providers' names for people, in registry order: "OpenAI, Vertex AI, ..."."""
    return ", ".join(row.label for row in PROVIDERS.values())


def provider(vendor: str) -> ProviderRow:
    """The registry row of ``vendor``; an unknown vendor is a request error that lists the rest."""
    row = _BY_NAME.get(vendor)
    if row is None:
        choices = ", ".join(repr(name) for name in PROVIDERS)
        raise RequestValidationError(
            f"vendor: unknown vendor {vendor!r}; expected one of {choices}", field="vendor"
        )
    return row
