"""Span attributes of a routed call: GenAI semantic conventions first, grounding-router's after.

Names follow the OpenTelemetry GenAI semantic conventions (``gen_ai.*``, development status,
checked against open-telemetry/semantic-conventions-genai in November 2026): the operation and
the provider name come from the provider's registry row, handed in (``openai`` / ``chat``,
``gcp.vertex_ai`` / ``generate_content``), usage counts all input tokens with the cache reads
among them and all output tokens with the reasoning among them. ``grounding_router.*``
attributes carry what the conventions have no name for: grounding, citations, searches,
attempts, cost.

What a reply says about the world (search queries, cited URLs and domains) is recorded only when
``trace_content`` is on, and then at most ``trace_content_max_items`` values of at most
``trace_content_max_chars`` characters each: it can be personal data, and Google's terms
restrict storing grounded results.

Every attribute a span or span event gets passes :func:`redacted` on its way (the one choke
point, used by :mod:`router.tracing` and :mod:`router.tracing.spans`): a strong secret quoted
back by a provider (in a search query, a URL) never reaches a trace, and an ordinary word is
never rewritten (``redact_text(..., shapes=False)``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from router.errors import GroundingRequiredFailedError, ProviderError, RouterError
from router.text.redaction import redact_text, strong_secrets_registered
from router.types import LLMRequest, LLMResponse

__all__ = [
    "FIRST_CHUNK_S",
    "REQUEST_STREAM",
    "STREAM_ABANDONED",
    "AttributeValue",
    "ContentPolicy",
    "GenAINames",
    "error_attributes",
    "kept_response",
    "operation_of",
    "redacted",
    "request_attributes",
    "response_attributes",
]

AttributeValue = str | bool | int | float | Sequence[str]

OPERATION = "gen_ai.operation.name"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_TEMPERATURE = "gen_ai.request.temperature"
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
OUTPUT_TYPE = "gen_ai.output.type"
REQUEST_STREAM = "gen_ai.request.stream"
FIRST_CHUNK_S = "gen_ai.response.time_to_first_chunk"
RESPONSE_ID = "gen_ai.response.id"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHE_READ_TOKENS = "gen_ai.usage.cache_read.input_tokens"
REASONING_TOKENS = "gen_ai.usage.reasoning.output_tokens"
ERROR_TYPE = "error.type"
HTTP_STATUS = "http.response.status_code"

PREFIX = "grounding_router."
VENDOR = PREFIX + "vendor"
REQUEST_ID = PREFIX + "request_id"
GROUNDED = PREFIX + "grounded"
GROUNDING_MODE = PREFIX + "grounding_mode"
GROUNDED_EFFECTIVE = PREFIX + "grounded_effective"
REQUIRED_FAILURE_REASON = PREFIX + "required_failure_reason"
ERROR_REASON = PREFIX + "error.reason"
CITATIONS_COUNT = PREFIX + "citations.count"
QUERIES_COUNT = PREFIX + "web_search_queries.count"
TOOL_CALL_COUNT = PREFIX + "tool_call_count"
ATTEMPTS = PREFIX + "attempts"
TWO_STEP = PREFIX + "two_step"
STREAM_ABANDONED = PREFIX + "stream.abandoned"
COST = PREFIX + "cost"
COST_CURRENCY = PREFIX + "cost.currency"
COST_SEARCHES = PREFIX + "cost.searches"
QUERIES = PREFIX + "web_search_queries"
CITED_URLS = PREFIX + "citations.urls"
CITED_DOMAINS = PREFIX + "citations.domains"


@dataclass(frozen=True, slots=True)
class ContentPolicy:
    """Whether queries and citations are recorded, and how much of them."""

    record: bool = False
    max_items: int = 10
    max_chars: int = 256

    def cap(self, values: Sequence[str | None]) -> list[str]:
        """At most ``max_items`` non-empty values, each cut to ``max_chars`` characters."""
        kept = [value[: self.max_chars] for value in values if value]
        return kept[: self.max_items]


class GenAINames(Protocol):
    """What a provider's registry row says of it in the GenAI conventions (read, never imported:
    the tracing stands below the adapters)."""

    @property
    def vendor(self) -> str: ...

    @property
    def genai_operation(self) -> str: ...

    @property
    def genai_provider(self) -> str | None: ...


def redacted(attributes: Mapping[str, AttributeValue] | None) -> dict[str, AttributeValue]:
    """``attributes`` as a dict of their own, with no strong secret in any text value."""
    copy = dict(attributes or {})
    if not strong_secrets_registered():
        return copy
    for name, value in copy.items():
        if isinstance(value, str):
            copy[name] = redact_text(value, shapes=False)
        elif isinstance(value, Sequence) and any(isinstance(item, str) for item in value):
            copy[name] = [
                redact_text(item, shapes=False) if isinstance(item, str) else item for item in value
            ]
    return copy


def operation_of(row: GenAINames) -> tuple[str, str]:
    """``(gen_ai.operation.name, gen_ai.provider.name)`` of a vendor, from its registry row."""
    return row.genai_operation, row.genai_provider or row.vendor


def request_attributes(request: LLMRequest, row: GenAINames) -> dict[str, AttributeValue]:
    """What is known when the call starts (samplers see these); ``row``: the vendor's."""
    operation, provider_name = operation_of(row)
    attributes: dict[str, AttributeValue] = {
        OPERATION: operation,
        PROVIDER: provider_name,
        REQUEST_MODEL: request.model,
        OUTPUT_TYPE: "json" if request.wants_json else "text",
        VENDOR: request.vendor,
        GROUNDED: request.grounded,
        GROUNDING_MODE: request.grounding_mode,
    }
    if request.temperature is not None:
        attributes[REQUEST_TEMPERATURE] = request.temperature
    if request.max_output_tokens is not None:
        attributes[REQUEST_MAX_TOKENS] = request.max_output_tokens
    if request.request_id is not None:
        attributes[REQUEST_ID] = request.request_id
    return attributes


def response_attributes(response: LLMResponse, content: ContentPolicy) -> dict[str, AttributeValue]:
    """What the answer showed: usage, grounding evidence, attempts, cost."""
    attributes: dict[str, AttributeValue] = {
        GROUNDED_EFFECTIVE: response.grounded_effective,
        CITATIONS_COUNT: len(response.citations),
        QUERIES_COUNT: len(response.web_search_queries),
        TOOL_CALL_COUNT: response.tool_call_count,
        ATTEMPTS: response.attempts,
        TWO_STEP: bool(response.metadata.get("two_step", False)),
    }
    response_id = response.metadata.get("response_id")
    if isinstance(response_id, str) and response_id:
        attributes[RESPONSE_ID] = response_id
    if response.model_version:
        attributes[RESPONSE_MODEL] = response.model_version
    usage = response.usage
    for name, value in (
        (INPUT_TOKENS, usage.input_tokens),
        (OUTPUT_TOKENS, usage.output_tokens),
        (CACHE_READ_TOKENS, usage.cached_input_tokens),
        (REASONING_TOKENS, usage.reasoning_tokens),
    ):
        if value is not None:
            attributes[name] = value
    if usage.cost is not None:
        attributes[COST] = usage.cost.total
        attributes[COST_SEARCHES] = usage.cost.searches
        attributes[COST_CURRENCY] = usage.cost.currency
    if content.record:
        attributes[QUERIES] = content.cap(response.web_search_queries)
        attributes[CITED_URLS] = content.cap([c["url"] for c in response.citations])
        attributes[CITED_DOMAINS] = content.cap([c["source_domain"] for c in response.citations])
    return attributes


def error_attributes(error: BaseException) -> dict[str, AttributeValue]:
    """The error's class (``error.type``), and for router errors its reason and status."""
    attributes: dict[str, AttributeValue] = {ERROR_TYPE: type(error).__name__}
    if isinstance(error, RouterError) and error.reason:
        attributes[ERROR_REASON] = error.reason
    if isinstance(error, ProviderError) and error.status_code is not None:
        attributes[HTTP_STATUS] = error.status_code
    if isinstance(error, GroundingRequiredFailedError):
        attributes[REQUIRED_FAILURE_REASON] = error.reason
    return attributes


def kept_response(error: BaseException) -> LLMResponse | None:
    """The answer a grounding validator rejected, kept on its error."""
    response: Any = getattr(error, "response", None)
    return response if isinstance(response, LLMResponse) else None
